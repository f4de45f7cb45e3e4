package dev.tollgate.check.envoy;

import dev.tollgate.testsupport.redis.RedisCluster;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No gRPC connection is held for ever: one busy past its age is told to go away, so that
 * Envoy's few long-lived HTTP/2 connections reach pods the autoscaler adds; one left idle is closed. Each
 * wait is bounded far above the limit set, and what is asserted is that the server, not the client, ended
 * the connection.
 */
class RlsConnectionLimitsIT {

    private static final RateLimitRequest CHECK = RateLimitRequest.newBuilder().setDomain("envoy")
            .addDescriptors(RateLimitDescriptor.newBuilder().addEntries(
                    RateLimitDescriptor.Entry.newBuilder().setKey("nothing-maps-this").setValue("x")))
            .build();

    @Test
    void aBusyConnectionIsSentAwayAtItsAgeAndTheGatewayReconnects() throws Exception {
        try (EnvoyPod pod = EnvoyPod.start("rls-age-it", RedisCluster.shared().clusterNodes(),
                Map.of("tollgate.grpc.max-connection-age", "1s", "tollgate.grpc.max-connection-age-grace", "1s"))) {
            CountDownLatch left = leavesReady(pod);
            int answered = 0;
            // calls every 50 ms: the connection is never idle, only old
            for (int i = 0; i < 300 && left.getCount() > 0; i++) {
                assertThat(pod.shouldRateLimit(CHECK).getOverallCode()).isEqualTo(RateLimitResponse.Code.OK);
                answered++;
                Thread.sleep(50);
            }
            assertThat(left.getCount()).as("the server ended the busy connection within 15 s (age 1 s)").isZero();
            assertThat(answered).isPositive();
            assertThat(pod.shouldRateLimit(CHECK).getOverallCode()).as("a new connection answers").isEqualTo(RateLimitResponse.Code.OK);
        }
    }

    @Test
    void anIdleConnectionIsClosed() throws Exception {
        try (EnvoyPod pod = EnvoyPod.start("rls-idle-it", RedisCluster.shared().clusterNodes(),
                Map.of("tollgate.grpc.max-connection-idle", "1s"))) {
            CountDownLatch left = leavesReady(pod);
            assertThat(left.await(15, TimeUnit.SECONDS)).as("the server closed the idle connection within 15 s (idle 1 s)").isTrue();
            assertThat(pod.shouldRateLimit(CHECK).getOverallCode()).isEqualTo(RateLimitResponse.Code.OK);
        }
    }

    /** Connects with one call, then counts down when the connection stops being READY, whoever ended it. */
    private static CountDownLatch leavesReady(EnvoyPod pod) {
        assertThat(pod.shouldRateLimit(CHECK).getOverallCode()).isEqualTo(RateLimitResponse.Code.OK);
        ManagedChannel channel = pod.channel;
        assertThat(channel.getState(false)).isEqualTo(ConnectivityState.READY);
        CountDownLatch left = new CountDownLatch(1);
        channel.notifyWhenStateChanged(ConnectivityState.READY, left::countDown);
        return left;
    }
}
