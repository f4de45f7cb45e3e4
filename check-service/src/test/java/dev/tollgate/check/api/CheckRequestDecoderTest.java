package dev.tollgate.check.api;

import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.wire.WireFormat;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.springframework.core.ResolvableType;
import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.MediaType;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The streaming reader takes only what the strict data-binding reader takes, and reads it the same; all
 * else goes to that reader, so a refusal and its message are the same as without the streaming reader.
 */
class CheckRequestDecoderTest {

    private static final JsonMapper STRICT = WireFormat.strict(WireFormat.configure(JsonMapper.builder())).build();
    private static final ResolvableType CHECK = ResolvableType.forClass(CheckRequest.class);
    private final CheckRequestDecoder decoder = new CheckRequestDecoder(STRICT);

    @Example
    void readsTheDesignsCheck() {
        String body = """
                {"domain":"public-api","entries":[{"rule":"growth-global","key":"acct_7Q2","cost":1},{"rule":"labels-route","key":"acct_7Q2"}]}""";

        CheckRequest request = decoder.plain(body.getBytes(StandardCharsets.UTF_8));

        assertThat(request).isEqualTo(STRICT.readValue(body, CheckRequest.class));
        assertThat(request.entries()).hasSize(2);
    }

    @Property(tries = 500)
    void readsAsTheStrictReaderDoes(@ForAll("bodies") String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        CheckRequest fast = decoder.plain(bytes);
        Object expected;
        try {
            expected = STRICT.readValue(bytes, CheckRequest.class);
        } catch (JacksonException refused) {
            assertThat(fast).as("taken by the streaming reader, refused by the strict one").isNull();
            assertThatThrownBy(() -> decode(bytes)).isInstanceOf(DecodingException.class)
                    .cause().hasMessage(refused.getMessage());
            return;
        }
        if (fast != null) {
            assertThat(fast).isEqualTo(expected);
        }
        assertThat(decode(bytes)).isEqualTo(expected);
    }

    private Object decode(byte[] body) {
        return decoder.decode(DefaultDataBufferFactory.sharedInstance.wrap(body), CHECK, MediaType.APPLICATION_JSON, Map.of());
    }

    /** Bodies near the check's shape: right and wrong names, types, repeats, nulls, numbers of every form, trailing text. */
    @Provide
    Arbitrary<String> bodies() {
        Arbitrary<String> scalar = Arbitraries.oneOf(
                Arbitraries.of("\"public-api\"", "\"acct_7Q2\"", "\"\"", "\"a\\\"b\\u00e9\\n\"", "null", "true", "1", "0", "-3",
                        "1.5", "2.0", "1e2", "1e-999999999", "99999999999999999999999", "10", "\"1\"", "[]", "{}", "[1]"),
                Arbitraries.integers().map(String::valueOf));
        Arbitrary<String> entryName = Arbitraries.of("rule", "key", "cost", "costs", "Rule", "extra");
        Arbitrary<String> entryField = Combinators.combine(entryName, scalar).as((n, v) -> "\"" + n + "\":" + v);
        Arbitrary<String> goodEntry = Combinators.combine(Arbitraries.of("\"growth-global\"", "\"labels-route\"", "null"),
                        Arbitraries.of("\"acct_1\"", "\"k\"", "1"), Arbitraries.of("", ",\"cost\":1", ",\"cost\":64", ",\"cost\":1.0", ",\"cost\":0"))
                .as((r, k, c) -> "{\"rule\":" + r + ",\"key\":" + k + c + "}");
        Arbitrary<String> randomEntry = entryField.list().ofMaxSize(4).map(fields -> "{" + String.join(",", fields) + "}");
        Arbitrary<String> entry = Arbitraries.oneOf(goodEntry, goodEntry, randomEntry, scalar);
        Arbitrary<String> entries = entry.list().ofMaxSize(3).map(list -> "[" + String.join(",", list) + "]");
        Arbitrary<String> rootValue = Arbitraries.oneOf(entries, entries, scalar);
        Arbitrary<String> rootName = Arbitraries.of("domain", "entries", "entries", "domains", "Domain");
        Arbitrary<String> rootField = Combinators.combine(rootName, rootValue).as((n, v) -> "\"" + n + "\":" + v);
        Arbitrary<String> good = Combinators.combine(Arbitraries.of("\"public-api\"", "\"auth\"", "1", "null"), entries)
                .as((d, e) -> "{\"domain\":" + d + ",\"entries\":" + e + "}");
        Arbitrary<String> random = rootField.list().ofMaxSize(3).map((List<String> fields) -> "{" + String.join(",", fields) + "}");
        Arbitrary<String> object = Arbitraries.oneOf(good, good, random);
        Arbitrary<String> tail = Arbitraries.of("", "", "", " ", "\n", " {}", "x", "}", " 1");
        Arbitrary<String> head = Arbitraries.of("", "", " ", "[", "\uFEFF");
        return Combinators.combine(head, object, tail).as((h, o, t) -> h + o + t);
    }
}
