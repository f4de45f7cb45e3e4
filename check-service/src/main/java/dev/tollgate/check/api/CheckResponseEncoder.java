package dev.tollgate.check.api;

import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.EntryResult;
import dev.tollgate.common.check.Verdict;
import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.codec.json.JacksonJsonEncoder;
import org.springframework.util.MimeType;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.TokenStreamFactory;
import tools.jackson.databind.json.JsonMapper;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Writes a check's answer with Jackson's streaming generator instead of data binding, field by field in
 * the order and form the wire format gives it (snake_case, lower-case verdicts, no nulls): the same bytes,
 * which CheckResponseEncoderTest holds it to, for a fraction of the cost. Everything else (problem details,
 * actuator answers) is the parent's.
 */
final class CheckResponseEncoder extends JacksonJsonEncoder {

    private final TokenStreamFactory streams;

    CheckResponseEncoder(JsonMapper json) {
        super(json);
        this.streams = CheckJson.perThreadBuffers(json);
    }

    @Override
    public DataBuffer encodeValue(Object value, DataBufferFactory bufferFactory, ResolvableType valueType,
                                  MimeType mimeType, Map<String, Object> hints) {
        if (!(value instanceof CheckResponse response) || !utf8(mimeType)) {
            return super.encodeValue(value, bufferFactory, valueType, mimeType, hints);
        }
        DataBuffer buffer = bufferFactory.allocateBuffer(512);
        try (JsonGenerator generator = generator(streams, buffer.asOutputStream())) {
            write(response, generator);
        } catch (RuntimeException e) {
            DataBufferUtils.release(buffer);
            throw e;
        }
        return buffer;
    }

    static void write(CheckResponse response, JsonGenerator out) {
        out.writeStartObject();
        if (response.verdict() != null) {
            out.writeStringProperty("verdict", lower(response.verdict()));
        }
        out.writeName("entries");
        out.writeStartArray();
        for (EntryResult entry : response.entries()) {
            write(entry, out);
        }
        out.writeEndArray();
        out.writeName("headers");
        out.writeStartObject();
        for (Map.Entry<String, String> header : response.headers().entrySet()) {
            out.writeName(header.getKey());
            if (header.getValue() == null) {
                out.writeNull();
            } else {
                out.writeString(header.getValue());
            }
        }
        out.writeEndObject();
        out.writeEndObject();
    }

    private static void write(EntryResult entry, JsonGenerator out) {
        out.writeStartObject();
        if (entry.rule() != null) {
            out.writeStringProperty("rule", entry.rule());
        }
        if (entry.verdict() != null) {
            out.writeStringProperty("verdict", lower(entry.verdict()));
        }
        out.writeNumberProperty("remaining", entry.remaining());
        out.writeNumberProperty("reset_ms", entry.resetMs());
        if (entry.retryMs() != null) {
            out.writeNumberProperty("retry_ms", entry.retryMs());
        }
        if (entry.unknownRule() != null) {
            out.writeBooleanProperty("unknown_rule", entry.unknownRule());
        }
        if (entry.shadow() != null) {
            out.writeBooleanProperty("shadow", entry.shadow());
        }
        if (entry.fallback() != null) {
            out.writeStringProperty("fallback", entry.fallback());
        }
        if (entry.quota() != null) {
            out.writeNumberProperty("quota", entry.quota());
        }
        if (entry.windowS() != null) {
            out.writeNumberProperty("window_s", entry.windowS());
        }
        out.writeEndObject();
    }

    private static String lower(Verdict verdict) {
        return verdict == Verdict.ALLOW ? "allow" : "deny";
    }

    /**
     * A generator from the factory alone: the answer is written field by field, so the mapper's write context (a
     * serialization context built for every generator) has nothing to do.
     */
    static JsonGenerator generator(TokenStreamFactory streams, OutputStream out) {
        return streams.createGenerator(ObjectWriteContext.empty(), out);
    }

    private static boolean utf8(MimeType mimeType) {
        return mimeType == null || mimeType.getCharset() == null || StandardCharsets.UTF_8.equals(mimeType.getCharset());
    }
}
