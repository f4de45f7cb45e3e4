package dev.tollgate.bench.soak;

import dev.tollgate.bench.soak.SoakTraffic.Kind;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;

import java.nio.charset.StandardCharsets;

/**
 * How one check of the soak came back, against what docs/failure-modes.md and docs/check-api.md promise for its kind: a fail-open (API) check is
 * always a 200 verdict, from the pod's fallback bucket when its shard cannot answer; a fail-closed (login) check is a
 * verdict of the store or, when its shard cannot answer, a deny (HTTP 503 {@code store_unavailable} / 504
 * {@code store_timeout}; over gRPC {@code OVER_LIMIT} with {@code x-tollgate-degraded}), never an allow from a
 * fallback; a malformed request is refused (400 or 422; over gRPC {@code INVALID_ARGUMENT}). Anything else is
 * {@link #WRONG}. The three last are checks that got no answer at all.
 */
enum Outcome {
    /** A verdict (allow or deny) not marked as a fallback: over gRPC, which marks no fail-open answer, any verdict of an API rule. */
    ENFORCED("enforced"),
    /** HTTP: a fail-open check's 200 with an entry answered by the pod's fallback bucket. */
    FALLBACK("fail-open from fallback"),
    /** A fail-closed check denied because its shard could not answer. */
    FAILED_CLOSED("fail-closed deny"),
    /** A malformed request refused as such. */
    REFUSED("malformed, refused"),
    /** An answer those docs do not promise for the check's kind. */
    WRONG("wrong"),
    /** The connection broke after the check was sent (a pod killed with it in flight). */
    BROKEN("broken"),
    /** No answer within the response timeout. */
    TIMED_OUT("timed out"),
    /** Neither pod could be connected to. */
    NO_POD("no pod reachable");

    final String label;

    Outcome(String label) {
        this.label = label;
    }

    boolean answered() {
        return this != BROKEN && this != TIMED_OUT && this != NO_POD;
    }

    private static final byte[] VERDICT = bytes("\"verdict\":\"");
    private static final byte[] FALLBACK_MARK = bytes("\"fallback\":");
    private static final byte[] STORE_UNAVAILABLE = bytes("\"store_unavailable\"");
    private static final byte[] STORE_TIMEOUT = bytes("\"store_timeout\"");

    static Outcome ofHttp(Kind kind, int status, byte[] body) {
        if (kind.malformed()) {
            return status == 400 || status == 422 ? REFUSED : WRONG;
        }
        if (status == 200 && contains(body, VERDICT)) {
            boolean fallback = contains(body, FALLBACK_MARK);
            if (kind.failsClosed()) {
                // a closed rule has no fallback bucket: a fallback answer to a login is an allow it must never give
                return fallback ? WRONG : ENFORCED;
            }
            return fallback ? FALLBACK : ENFORCED;
        }
        if (kind.failsClosed() && ((status == 503 && contains(body, STORE_UNAVAILABLE)) || (status == 504 && contains(body, STORE_TIMEOUT)))) {
            return FAILED_CLOSED;
        }
        return WRONG;
    }

    static Outcome ofGrpc(Kind kind, RateLimitResponse response) {
        if (kind.malformed()) {
            return WRONG;
        }
        boolean degraded = false;
        for (HeaderValue header : response.getResponseHeadersToAddList()) {
            degraded |= header.getKey().equalsIgnoreCase("x-tollgate-degraded");
        }
        RateLimitResponse.Code code = response.getOverallCode();
        if (code != RateLimitResponse.Code.OK && code != RateLimitResponse.Code.OVER_LIMIT) {
            return WRONG;
        }
        if (degraded) {
            // only a closed rule's failure is marked, and it must deny
            return kind.failsClosed() && code == RateLimitResponse.Code.OVER_LIMIT ? FAILED_CLOSED : WRONG;
        }
        return ENFORCED;
    }

    /** A call that failed with a gRPC status: only a malformed request's INVALID_ARGUMENT was asked for. */
    static Outcome ofGrpcStatus(Kind kind, io.grpc.Status.Code code) {
        if (code == io.grpc.Status.Code.DEADLINE_EXCEEDED) {
            return TIMED_OUT;
        }
        return kind.malformed() && code == io.grpc.Status.Code.INVALID_ARGUMENT ? REFUSED : WRONG;
    }

    static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
