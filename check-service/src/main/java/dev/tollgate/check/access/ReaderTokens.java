package dev.tollgate.check.access;

import java.util.List;

/**
 * The tokens of people and tools that may look at how a key stands ({@code POST /v1/ratelimit:explain}):
 * support staff and their console, an operator's script. A reader's token is not a gateway's: a look shows an
 * account's limits, override and counters, which a gateway never needs, and a gateway's token, held by every
 * gateway pod, opens no look. None configured: no one may look, whatever the service tokens.
 */
public record ReaderTokens(ServiceTokens tokens) {

    public static ReaderTokens of(List<String> tokens) {
        return new ReaderTokens(ServiceTokens.of("tollgate.access.reader-tokens", tokens));
    }

    /** Whether looking is on at all. */
    public boolean configured() {
        return tokens.required();
    }

    /** Whether the {@code Authorization} value carries a reader's token; never true while none is configured. */
    public boolean accepts(String authorization) {
        return configured() && tokens.accepts(authorization);
    }
}
