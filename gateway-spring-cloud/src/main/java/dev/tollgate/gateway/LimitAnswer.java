package dev.tollgate.gateway;

import java.util.Map;

/**
 * What the gateway does with one request: pass it on or refuse it, and the headers for the caller either way.
 *
 * @param fallback null when Tollgate answered; else why the gateway answered by its fail mode
 */
public record LimitAnswer(boolean allowed, Map<String, String> headers, String fallback) {

    public LimitAnswer {
        headers = headers == null ? Map.of() : Map.copyOf(headers);
    }
}
