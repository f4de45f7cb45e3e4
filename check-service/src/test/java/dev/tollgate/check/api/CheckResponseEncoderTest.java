package dev.tollgate.check.api;

import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.EntryResult;
import dev.tollgate.common.check.Verdict;
import dev.tollgate.common.wire.WireFormat;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Builders;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.MediaType;
import tools.jackson.databind.json.JsonMapper;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The streaming answer is byte for byte what data binding writes, for any answer. */
class CheckResponseEncoderTest {

    private static final JsonMapper JSON = WireFormat.configure(JsonMapper.builder()).build();
    private final CheckResponseEncoder encoder = new CheckResponseEncoder(JSON);

    @Property(tries = 500)
    void writesWhatDataBindingWrites(@ForAll("responses") CheckResponse response) {
        assertThat(encoded(response, CheckResponse.class)).isEqualTo(JSON.writeValueAsBytes(response));
    }

    @Property(tries = 50)
    void leavesAnythingElseToDataBinding(@ForAll("entries") EntryResult entry) {
        assertThat(encoded(entry, EntryResult.class)).isEqualTo(JSON.writeValueAsBytes(entry));
    }

    private byte[] encoded(Object value, Class<?> type) {
        DataBuffer buffer = encoder.encodeValue(value, DefaultDataBufferFactory.sharedInstance, ResolvableType.forClass(type),
                MediaType.APPLICATION_JSON, Map.of());
        byte[] bytes = new byte[buffer.readableByteCount()];
        buffer.read(bytes);
        return bytes;
    }

    @Provide
    Arbitrary<CheckResponse> responses() {
        Arbitrary<Map<String, String>> headers = Arbitraries.maps(text(), text().injectNull(0.1)).ofMaxSize(3)
                .map(LinkedHashMap::new);
        return Builders.withBuilder(() -> new Object[3])
                .use(Arbitraries.of(Verdict.class).injectNull(0.1)).in((parts, verdict) -> { parts[0] = verdict; return parts; })
                .use(entries().list().ofMaxSize(4)).in((parts, entries) -> { parts[1] = entries; return parts; })
                .use(headers.injectNull(0.1)).in((parts, map) -> { parts[2] = map; return parts; })
                .build(parts -> new CheckResponse((Verdict) parts[0], castEntries(parts[1]), castHeaders(parts[2])));
    }

    @Provide
    Arbitrary<EntryResult> entries() {
        Arbitrary<Long> longs = Arbitraries.longs();
        Arbitrary<Integer> ints = Arbitraries.integers();
        return Builders.withBuilder(() -> new Object[10])
                .use(text().injectNull(0.1)).in((p, v) -> set(p, 0, v))
                .use(Arbitraries.of(Verdict.class).injectNull(0.1)).in((p, v) -> set(p, 1, v))
                .use(longs).in((p, v) -> set(p, 2, v))
                .use(longs).in((p, v) -> set(p, 3, v))
                .use(longs.injectNull(0.5)).in((p, v) -> set(p, 4, v))
                .use(Arbitraries.of(true, false).injectNull(0.6)).in((p, v) -> set(p, 5, v))
                .use(Arbitraries.of(true, false).injectNull(0.6)).in((p, v) -> set(p, 6, v))
                .use(text().injectNull(0.6)).in((p, v) -> set(p, 7, v))
                .use(ints.injectNull(0.4)).in((p, v) -> set(p, 8, v))
                .use(ints.injectNull(0.4)).in((p, v) -> set(p, 9, v))
                .build(p -> new EntryResult((String) p[0], (Verdict) p[1], (Long) p[2], (Long) p[3], (Long) p[4],
                        (Boolean) p[5], (Boolean) p[6], (String) p[7], (Integer) p[8], (Integer) p[9]));
    }

    /** Keys and header values with what needs escaping: quotes, backslashes, control characters, non-ASCII. */
    private static Arbitrary<String> text() {
        return Arbitraries.oneOf(
                Arbitraries.of("growth-global", "\"labels-route\";q=2;w=1", "acct_7Q2", ""),
                Arbitraries.strings().ofMaxLength(12),
                Arbitraries.strings().withChars('"', '\\', '\n', '\u0000', '\u001f', '/', 'é', '\u2028', '\uD83D', '\uDE00').ofMaxLength(6));
    }

    private static Object[] set(Object[] parts, int index, Object value) {
        parts[index] = value;
        return parts;
    }

    @SuppressWarnings("unchecked")
    private static List<EntryResult> castEntries(Object entries) {
        return (List<EntryResult>) entries;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> castHeaders(Object headers) {
        return (Map<String, String>) headers;
    }
}
