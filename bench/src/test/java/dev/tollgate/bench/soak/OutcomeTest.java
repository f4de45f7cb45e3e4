package dev.tollgate.bench.soak;

import dev.tollgate.bench.soak.SoakTraffic.Kind;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.grpc.Status;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class OutcomeTest {

    private static final String ALLOW = "{\"verdict\":\"allow\",\"entries\":[{\"rule\":\"pro\",\"verdict\":\"allow\"}]}";
    private static final String FALLBACK = "{\"verdict\":\"allow\",\"entries\":[{\"rule\":\"pro\",\"verdict\":\"allow\",\"fallback\":\"fail_open\"}]}";

    @Test
    void anApiCheckIsAVerdictFromTheStoreOrFromTheFallbackAndNeverAnError() {
        assertThat(Outcome.ofHttp(Kind.API, 200, bytes(ALLOW))).isEqualTo(Outcome.ENFORCED);
        assertThat(Outcome.ofHttp(Kind.API_OVER, 200, bytes(FALLBACK))).isEqualTo(Outcome.FALLBACK);
        assertThat(Outcome.ofHttp(Kind.API, 503, bytes("{\"code\":\"store_unavailable\"}"))).isEqualTo(Outcome.WRONG);
        assertThat(Outcome.ofHttp(Kind.API_NEW, 500, bytes("{}"))).isEqualTo(Outcome.WRONG);
    }

    @Test
    void aLoginIsAStoreVerdictOrADenyForItsShardAndNeverAFallbackAllow() {
        assertThat(Outcome.ofHttp(Kind.LOGIN, 200, bytes("{\"verdict\":\"deny\"}"))).isEqualTo(Outcome.ENFORCED);
        assertThat(Outcome.ofHttp(Kind.LOGIN, 503, bytes("{\"code\":\"store_unavailable\"}"))).isEqualTo(Outcome.FAILED_CLOSED);
        assertThat(Outcome.ofHttp(Kind.LOGIN_BRUTE, 504, bytes("{\"code\":\"store_timeout\"}"))).isEqualTo(Outcome.FAILED_CLOSED);
        assertThat(Outcome.ofHttp(Kind.LOGIN, 200, bytes(FALLBACK))).isEqualTo(Outcome.WRONG);
        assertThat(Outcome.ofHttp(Kind.LOGIN, 503, bytes("{\"code\":\"rules_unavailable\"}"))).isEqualTo(Outcome.WRONG);
    }

    @Test
    void aMalformedRequestIsRefused() {
        assertThat(Outcome.ofHttp(Kind.MALFORMED, 400, bytes("{}"))).isEqualTo(Outcome.REFUSED);
        assertThat(Outcome.ofHttp(Kind.MALFORMED, 422, bytes("{}"))).isEqualTo(Outcome.REFUSED);
        assertThat(Outcome.ofHttp(Kind.MALFORMED, 200, bytes(ALLOW))).isEqualTo(Outcome.WRONG);
        assertThat(Outcome.ofGrpcStatus(Kind.MALFORMED, Status.Code.INVALID_ARGUMENT)).isEqualTo(Outcome.REFUSED);
        assertThat(Outcome.ofGrpcStatus(Kind.API, Status.Code.INVALID_ARGUMENT)).isEqualTo(Outcome.WRONG);
    }

    @Test
    void overGrpcOnlyAClosedRulesDenyMayBeDegraded() {
        RateLimitResponse degradedDeny = RateLimitResponse.newBuilder().setOverallCode(RateLimitResponse.Code.OVER_LIMIT)
                .addResponseHeadersToAdd(HeaderValue.newBuilder().setKey("x-tollgate-degraded").setValue("store_unavailable")).build();
        RateLimitResponse ok = RateLimitResponse.newBuilder().setOverallCode(RateLimitResponse.Code.OK).build();

        assertThat(Outcome.ofGrpc(Kind.LOGIN, degradedDeny)).isEqualTo(Outcome.FAILED_CLOSED);
        assertThat(Outcome.ofGrpc(Kind.API, degradedDeny)).isEqualTo(Outcome.WRONG);
        assertThat(Outcome.ofGrpc(Kind.API, ok)).isEqualTo(Outcome.ENFORCED);
        assertThat(Outcome.ofGrpc(Kind.MALFORMED, ok)).isEqualTo(Outcome.WRONG);
        assertThat(Outcome.ofGrpcStatus(Kind.LOGIN, Status.Code.DEADLINE_EXCEEDED)).isEqualTo(Outcome.TIMED_OUT);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
