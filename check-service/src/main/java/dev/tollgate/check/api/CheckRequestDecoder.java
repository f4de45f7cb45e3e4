package dev.tollgate.check.api;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import org.springframework.core.ResolvableType;
import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.util.MimeType;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.TokenStreamFactory;
import tools.jackson.databind.json.JsonMapper;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads a check request with Jackson's streaming parser instead of data binding, which is most of the
 * decoder's cost for the check's small fixed shape. Only the plain shape is read here: the three string
 * and integer fields where they belong, each at most once, nothing after the object. Anything else (an
 * unknown or repeated field, a null, a fraction, a string for a number, a parse error) goes to the strict
 * data-binding reader on the same bytes, so that every refusal, and its problem details, stays exactly
 * what it was. The body size limit, and buffering the body whole, stay the parent's.
 */
final class CheckRequestDecoder extends JacksonJsonDecoder {

    private final TokenStreamFactory streams;

    CheckRequestDecoder(JsonMapper strict) {
        super(strict);
        this.streams = CheckJson.perThreadBuffers(strict);
    }

    @Override
    public Object decode(DataBuffer buffer, ResolvableType targetType, MimeType mimeType, Map<String, Object> hints)
            throws DecodingException {
        if (targetType.toClass() != CheckRequest.class) {
            return super.decode(buffer, targetType, mimeType, hints);
        }
        byte[] body = new byte[buffer.readableByteCount()];
        buffer.read(body);
        DataBufferUtils.release(buffer);
        CheckRequest request = plain(body);
        return request != null ? request : super.decode(DefaultDataBufferFactory.sharedInstance.wrap(body), targetType, mimeType, hints);
    }

    /**
     * The request, or null when the body is not of the plain shape (the strict reader then says why). The parser
     * comes from the factory alone, without the mapper's read context (a deserialization context built for every
     * parser) or its duplicate detection (a set for every object): the plain shape refuses a repeated field itself.
     */
    CheckRequest plain(byte[] body) {
        try (JsonParser parser = streams.createParser(ObjectReadContext.empty(), body)) {
            CheckRequest request = request(parser);
            return request != null && parser.nextToken() == null ? request : null;
        } catch (JacksonException e) {
            return null;
        }
    }

    private static CheckRequest request(JsonParser parser) {
        if (parser.nextToken() != JsonToken.START_OBJECT) {
            return null;
        }
        String domain = null;
        List<CheckEntry> entries = null;
        for (String field = parser.nextName(); field != null; field = parser.nextName()) {
            JsonToken value = parser.nextToken();
            if (field.equals("domain") && domain == null && value == JsonToken.VALUE_STRING) {
                domain = parser.getString();
            } else if (field.equals("entries") && entries == null && value == JsonToken.START_ARRAY) {
                entries = entries(parser);
                if (entries == null) {
                    return null;
                }
            } else {
                return null;
            }
        }
        return parser.currentToken() == JsonToken.END_OBJECT ? new CheckRequest(domain, entries) : null;
    }

    private static List<CheckEntry> entries(JsonParser parser) {
        List<CheckEntry> entries = new ArrayList<>(2);
        for (JsonToken token = parser.nextToken(); token != JsonToken.END_ARRAY; token = parser.nextToken()) {
            CheckEntry entry = token == JsonToken.START_OBJECT ? entry(parser) : null;
            if (entry == null) {
                return null;
            }
            entries.add(entry);
        }
        return entries;
    }

    private static CheckEntry entry(JsonParser parser) {
        String rule = null;
        String key = null;
        BigDecimal cost = null;
        for (String field = parser.nextName(); field != null; field = parser.nextName()) {
            JsonToken value = parser.nextToken();
            if (field.equals("rule") && rule == null && value == JsonToken.VALUE_STRING) {
                rule = parser.getString();
            } else if (field.equals("key") && key == null && value == JsonToken.VALUE_STRING) {
                key = parser.getString();
            } else if (field.equals("cost") && cost == null && value == JsonToken.VALUE_NUMBER_INT) {
                cost = parser.getDecimalValue();
            } else {
                return null;
            }
        }
        return parser.currentToken() == JsonToken.END_OBJECT ? new CheckEntry(rule, key, cost) : null;
    }
}
