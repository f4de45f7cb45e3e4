package dev.tollgate.check.api;

import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.wire.WireFormat;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.TokenStreamFactory;
import tools.jackson.core.util.JsonRecyclerPools;
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
    private final TokenStreamFactory answers;

    CheckJson(JsonMapper json) {
        this.json = json;
        this.strict = WireFormat.strict(json.rebuild()).build();
        this.decoder = new CheckRequestDecoder(strict);
        this.answers = perThreadBuffers(json);
    }

    /**
     * The mapper's parser and generator factory, with each thread keeping its own buffers. Jackson's default pool is
     * one lock-free deque that every parser and generator takes its buffers from and gives them back to: two contended
     * operations on shared nodes per request and per answer, about a twentieth of a leased check's time on the event
     * loops (JFR). The check is parsed and answered on a few event loops that live as long as the pod, which is the
     * case a per-thread pool is for.
     */
    static TokenStreamFactory perThreadBuffers(JsonMapper mapper) {
        return mapper.tokenStreamFactory().rebuild().recyclerPool(JsonRecyclerPools.threadLocalPool()).build();
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
        try (JsonGenerator generator = CheckResponseEncoder.generator(answers, out)) {
            CheckResponseEncoder.write(response, generator);
        }
    }

    /**
     * A decoder of its own for each codec configurer: a decoder holds its configurer's body limit, and a client's
     * configurer built from the same customizers (a WebClient's, a WebTestClient's) setting a larger one for its
     * answers would otherwise have raised the server's (a check body of 900 KB then sat waiting to be read whole).
     */
    CheckRequestDecoder decoder() {
        return new CheckRequestDecoder(strict);
    }

    CheckResponseEncoder encoder() {
        return new CheckResponseEncoder(json);
    }
}
