package dev.tollgate.common.wire;

import dev.tollgate.common.wire.UnreadableJson.Kind;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class UnreadableJsonTest {

    record Entry(String rule, Integer cost) {
    }

    record Request(String domain, List<Entry> entries) {
    }

    private static final JsonMapper STRICT = WireFormat.strict(WireFormat.configure(JsonMapper.builder())).build();

    private static UnreadableJson reading(String body) {
        try {
            STRICT.readValue(body, Request.class);
        } catch (RuntimeException e) {
            // as the services see it: Jackson's failure wrapped by the web layer
            return UnreadableJson.of(new IllegalStateException("could not read", e));
        }
        throw new AssertionError("read without a failure: " + body);
    }

    @Test
    void namesAnUnknownFieldWhereItIs() {
        UnreadableJson unreadable = reading("{\"domain\":\"d\",\"entries\":[{\"rule\":\"r\",\"costs\":1}]}");

        assertThat(unreadable.kind()).isEqualTo(Kind.UNKNOWN_FIELD);
        assertThat(unreadable.field()).isEqualTo("entries[0].costs");
        assertThat(unreadable.reason()).isEqualTo("is not a field of this request");
    }

    @Test
    void saysWhatTypeAValueMustBe() {
        UnreadableJson text = reading("{\"entries\":[{\"cost\":\"1\"}]}");
        UnreadableJson number = reading("{\"domain\":1}");
        UnreadableJson object = reading("{\"entries\":[1]}");

        assertThat(text.kind()).isEqualTo(Kind.WRONG_TYPE);
        assertThat(text.field()).isEqualTo("entries[0].cost");
        assertThat(text.targetType()).isEqualTo(Integer.class);
        assertThat(text.reason()).isEqualTo("must be a number");
        assertThat(number.field()).isEqualTo("domain");
        assertThat(number.reason()).isEqualTo("must be a string");
        assertThat(object.reason()).isEqualTo("must be an object");
    }

    @Test
    void wordsEachTypeAsACallerThinksOfIt() {
        assertThat(UnreadableJson.expected(null, "a number")).isEqualTo("of another type");
        assertThat(UnreadableJson.expected(long.class, "a whole number")).isEqualTo("a whole number");
        assertThat(UnreadableJson.expected(Boolean.class, "a number")).isEqualTo("true or false");
        assertThat(UnreadableJson.expected(List.class, "a number")).isEqualTo("an array");
        assertThat(UnreadableJson.expected(String[].class, "a number")).isEqualTo("an array");
    }

    @Test
    void refusesAWholeNumberPastItsType() {
        UnreadableJson unreadable = reading("{\"entries\":[{\"cost\":99999999999}]}");

        assertThat(unreadable.kind()).isEqualTo(Kind.OUT_OF_RANGE);
        assertThat(unreadable.field()).isEqualTo("entries[0].cost");
        assertThat(unreadable.reason()).isEqualTo("is out of range");
    }

    @Test
    void namesAKeyGivenTwice() {
        UnreadableJson unreadable = reading("{\"domain\":\"d\",\"entries\":[{\"rule\":\"r\",\"rule\":\"s\"}]}");

        assertThat(unreadable.kind()).isEqualTo(Kind.DUPLICATE);
        assertThat(unreadable.field()).isEqualTo("entries[0].rule");
        assertThat(unreadable.reason()).isEqualTo("appears more than once in the same object");
    }

    @Test
    void tellsBrokenJsonFromASecondValueAndFromANumberTooLong() {
        UnreadableJson broken = reading("{\"domain\":\"d\",\"entries\":[{\"rule\":nope}]}");
        UnreadableJson second = reading("{\"domain\":\"d\"} {}");
        UnreadableJson huge = reading("{\"entries\":[{\"cost\":1" + "0".repeat(1_100) + "}]}");

        assertThat(broken.kind()).isEqualTo(Kind.SYNTAX);
        // as far as data binding had come: the entry, not the text after it
        assertThat(broken.field()).isEqualTo("entries[0]");
        assertThat(second.kind()).isEqualTo(Kind.TRAILING);
        assertThat(huge.kind()).isEqualTo(Kind.TOO_LARGE);
        assertThat(huge.reason()).startsWith("exceeds what a request may hold");
    }

    @Test
    void cutsALongFieldNameInsteadOfEchoingIt() {
        String name = "n".repeat(50_000);

        UnreadableJson unreadable = reading("{\"" + name + "\":1}");

        assertThat(unreadable.field()).isEqualTo("n".repeat(UnreadableJson.MAX_NAME) + "...");
    }

    @Test
    void withoutAJacksonFailureTheBodyIsMissingOrNotJson() {
        UnreadableJson unreadable = UnreadableJson.of(new IllegalStateException("no body"));

        assertThat(unreadable.kind()).isEqualTo(Kind.NOT_JSON);
        assertThat(unreadable.field()).isEmpty();
        assertThat(unreadable.reason()).isEqualTo("the body is missing or is not JSON");
    }
}
