package dev.tollgate.bench.wire;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;

/**
 * One check, encoded once before the load starts, so that the load generator spends nothing on encoding:
 * the HTTP check's JSON body and the same check as Envoy's request.
 */
public record WireCheck(byte[] json, RateLimitRequest envoy) {
}
