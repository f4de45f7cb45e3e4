package dev.tollgate.check.envoy;

import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.testsupport.redis.Node;
import dev.tollgate.testsupport.redis.RedisCluster;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static dev.tollgate.check.envoy.EnvoyPod.descriptor;
import static dev.tollgate.check.envoy.EnvoyPod.headers;
import static dev.tollgate.check.envoy.EnvoyPod.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * ShouldRateLimit when the counter store stalls or dies, on a Redis Cluster of its own: a call whose
 * deadline passes is cancelled at once; a dead or frozen store answers each rule by its fail mode (fail-open:
 * OK from the fallback bucket; fail-closed: OVER_LIMIT, whatever Envoy's {@code failure_mode_deny}).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EnvoyStoreDownIT {

    /** Far above the caller's deadline, so that only a cancellation can end the call before the store does. */
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(6);
    private static final Duration CALLER_DEADLINE = Duration.ofSeconds(1);

    private static RedisCluster cluster;
    private static EnvoyPod pod;

    @BeforeAll
    static void start() {
        cluster = RedisCluster.builder().start();
        pod = EnvoyPod.start("envoy-store-down", cluster.clusterNodes(),
                Map.of("tollgate.redis.command-timeout", COMMAND_TIMEOUT.toMillis() + "ms"));
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (pod != null) {
            pod.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void aCallWhoseDeadlinePassesIsCancelledNotLeftRunning() {
        String account = "acct_" + UUID.randomUUID();
        Node owner = cluster.primaryForKey(RedisKeys.limit(account, "account-minute"));
        // the channel connected and the shard's connection open: the deadline below is spent in the call, not in a handshake
        assertThat(pod.shouldRateLimit(request("envoy", descriptor("account", account))).getOverallCode()).isEqualTo(Code.OK);
        double cancelledBefore = calls("cancelled");
        owner.freeze();
        try {
            long started = System.nanoTime();
            assertThatThrownBy(() -> pod.rls.withDeadlineAfter(CALLER_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
                    .shouldRateLimit(request("envoy", descriptor("account", account))))
                    .isInstanceOfSatisfying(StatusRuntimeException.class,
                            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
            // the server let go of the call when its deadline passed, not when the store timed out (6 s)
            await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> {
                assertThat(calls("cancelled")).as(this::outcomes).isEqualTo(cancelledBefore + 1);
                assertThat(pod.meters().get(RlsMetrics.IN_FLIGHT).gauge().value()).as(this::outcomes).isZero();
            });
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(COMMAND_TIMEOUT);
        } finally {
            owner.unfreeze();
        }
    }

    @Test
    @Order(2)
    void aDeadStoreAnswersEachRuleByItsFailMode() {
        for (Node node : cluster.nodes()) {
            node.kill();
        }
        RateLimitRequest api = request("envoy", descriptor("account", "acct_" + UUID.randomUUID()));
        RateLimitResponse open = pod.shouldRateLimit(api);
        assertThat(open.getOverallCode()).isEqualTo(Code.OK);
        assertThat(open.getStatuses(0).getCurrentLimit().getName()).isEqualTo("account-minute");
        assertThat(headers(open)).containsKey("RateLimit-Policy");

        // a fail-closed rule denies at Envoy whatever its failure_mode_deny, and says why
        double failedClosed = calls("failed_closed");
        RateLimitResponse login = pod.shouldRateLimit(request("envoy", descriptor("remote_address", "203.0.113.7")));
        assertThat(login.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
        assertThat(login.getStatuses(0).getCode()).isEqualTo(Code.OVER_LIMIT);
        assertThat(headers(login).get(EnvoyAnswers.DEGRADED)).matches("store_(unavailable|timeout)");

        // an open rule beside it does not rescue a closed one, and is not itself denied
        RateLimitResponse mixed = pod.shouldRateLimit(request("envoy", descriptor("account", "acct_x"), descriptor("remote_address", "203.0.113.8"),
                descriptor("nothing-maps", "this")));
        assertThat(mixed.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
        assertThat(mixed.getStatusesList()).extracting(RateLimitResponse.DescriptorStatus::getCode)
                .containsExactly(Code.OK, Code.OVER_LIMIT, Code.OK);
        assertThat(calls("failed_closed")).isEqualTo(failedClosed + 2);
    }

    /**
     * On a pod at the production command timeout (5 ms): a frozen shard (SIGSTOP) denies the login
     * rule on it and leaves the API on it open, each call answered, before and after the shard's breaker opens.
     */
    @Test
    @Order(0)
    void aFrozenShardDeniesItsLoginRuleAndServesItsApiRule() throws InterruptedException {
        String ip = "203.0.113.10";
        Node owner = cluster.primaryForKey(RedisKeys.hashTag(ip));
        RateLimitRequest login = request("envoy", descriptor("remote_address", ip));
        RateLimitRequest api = request("envoy", descriptor("account", accountOn(owner)));
        try (EnvoyPod production = EnvoyPod.start("envoy-frozen-shard", cluster.clusterNodes(), Map.of("tollgate.redis.command-timeout", "5ms"))) {
            production.shouldRateLimit(login);
            production.shouldRateLimit(api);
            owner.freeze();
            try {
                // the first calls pay the store's timeouts, the rest meet the open breaker: the same verdicts. The API's
                // come from the pod's fallback bucket, a few calls deep for account-minute (burst 3): its first two are
                // allowed, and every one is a verdict of that bucket, never the degraded answer
                for (int i = 0; i < 10; i++) {
                    RateLimitResponse denied = production.shouldRateLimit(login);
                    assertThat(denied.getOverallCode()).as("login, call %d", i + 1).isEqualTo(Code.OVER_LIMIT);
                    assertThat(headers(denied).get(EnvoyAnswers.DEGRADED)).matches("store_(unavailable|timeout)");
                    RateLimitResponse served = production.shouldRateLimit(api);
                    if (i < 2) {
                        assertThat(served.getOverallCode()).as("api, call %d", i + 1).isEqualTo(Code.OK);
                    }
                    assertThat(served.getStatuses(0).getCurrentLimit().getName()).as("api, call %d", i + 1).isEqualTo("account-minute");
                    assertThat(headers(served)).doesNotContainKey(EnvoyAnswers.DEGRADED);
                }
            } finally {
                owner.unfreeze();
            }
        }
    }

    private static String accountOn(Node owner) {
        for (int i = 0; ; i++) {
            String account = "acct_frozen_" + i;
            if (cluster.primaryForKey(RedisKeys.hashTag(account)).port() == owner.port()) {
                return account;
            }
        }
    }

    private String outcomes() {
        StringBuilder text = new StringBuilder("calls by outcome:");
        pod.meters().get(RlsMetrics.CALLS).counters().forEach(c -> text.append(' ').append(c.getId().getTag("outcome")).append('=').append(c.count()));
        return text.append(", in flight ").append(pod.meters().get(RlsMetrics.IN_FLIGHT).gauge().value()).toString();
    }

    private static double calls(String outcome) {
        MeterRegistry meters = pod.meters();
        return meters.get(RlsMetrics.CALLS).tag("outcome", outcome).counter().count();
    }
}
