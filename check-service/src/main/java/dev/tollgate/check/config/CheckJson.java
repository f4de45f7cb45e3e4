package dev.tollgate.check.config;

import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.wire.WireFormat;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.json.JsonMapper;

import java.io.OutputStream;

/**
 * The check's JSON both ways, for WebFlux's codecs and for the check's own route alike: a request read
 * with the streaming parser when it has the plain shape and by the strict data-binding reader otherwise
 * (whose refusal then says what is wrong), an answer written with the streaming generator.
 */
public final class CheckJson {

    private final JsonMapper json;
    private final JsonMapper strict;
    private final CheckRequestDecoder decoder;

    CheckJson(JsonMapper json) {
        this.json = json;
        this.strict = WireFormat.strict(json.rebuild()).build();
        this.decoder = new CheckRequestDecoder(strict);
    }

    /**
     * The request in {@code body}; null for a JSON {@code null}.
     *
     * @throws JacksonException why the body is no check request, as the strict reader words it
     */
    public CheckRequest read(byte[] body) {
        CheckRequest request = decoder.plain(body);
        return request != null ? request : strict.readValue(body, CheckRequest.class);
    }

    public void write(CheckResponse response, OutputStream out) {
        try (JsonGenerator generator = json.createGenerator(out)) {
            CheckResponseEncoder.write(response, generator);
        }
    }

    CheckRequestDecoder decoder() {
        return decoder;
    }

    CheckResponseEncoder encoder() {
        return new CheckResponseEncoder(json);
    }
}
