package dev.tollgate.check.envoy;

import com.google.protobuf.UInt64Value;
import dev.tollgate.testsupport.redis.RedisCluster;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.RateLimit;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.tollgate.check.envoy.EnvoyPod.descriptor;
import static dev.tollgate.check.envoy.EnvoyPod.headers;
import static dev.tollgate.check.envoy.EnvoyPod.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

/**
 * Envoy's {@code ShouldRateLimit} against two real check-service pods on a real Redis Cluster, driven
 * by a client generated from Envoy's own protos.
 */
class EnvoyRateLimitIT {

    private static EnvoyPod podA;
    private static EnvoyPod podB;

    @BeforeAll
    static void startPods() {
        podA = EnvoyPod.start("envoy-a", RedisCluster.shared().clusterNodes(), Map.of());
        podB = EnvoyPod.start("envoy-b", RedisCluster.shared().clusterNodes(), Map.of());
    }

    @AfterAll
    static void stopPods() throws InterruptedException {
        if (podB != null) {
            podB.close();
        }
        if (podA != null) {
            podA.close();
        }
    }

    @Test
    void aDescriptorIsCheckedAgainstItsRuleWithItsStatusAndHeaders() {
        String account = account();
        RateLimitResponse response = podA.shouldRateLimitLogged(request("envoy", descriptor("account", account)));

        assertThat(response.getOverallCode()).isEqualTo(Code.OK);
        DescriptorStatus status = response.getStatuses(0);
        assertThat(status.getCode()).isEqualTo(Code.OK);
        assertThat(status.getCurrentLimit()).isEqualTo(RateLimit.newBuilder()
                .setName("account-minute").setRequestsPerUnit(1).setUnit(RateLimit.Unit.MINUTE).build());
        assertThat(status.getLimitRemaining()).isEqualTo(2);
        assertThat(status.getDurationUntilReset().getSeconds()).isBetween(1L, 60L);
        assertThat(headers(response)).containsExactly(
                entry("RateLimit-Policy", "\"account-minute\";q=1;w=60"),
                entry("RateLimit", "\"account-minute\";r=2;t=" + ceilSeconds(status)));
    }

    @Test
    void overLimitIsOverLimitWithRetryAfterForEnvoyToAdd() {
        String account = account();
        RateLimitRequest request = request("envoy", descriptor("account", account));
        for (int i = 0; i < 3; i++) {
            assertThat(podA.shouldRateLimit(request).getOverallCode()).isEqualTo(Code.OK);
        }
        RateLimitResponse denied = podA.shouldRateLimitLogged(request);

        assertThat(denied.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
        assertThat(denied.getStatuses(0).getCode()).isEqualTo(Code.OVER_LIMIT);
        assertThat(denied.getStatuses(0).getLimitRemaining()).isZero();
        Map<String, String> headers = headers(denied);
        assertThat(headers).containsEntry("RateLimit-Policy", "\"account-minute\";q=1;w=60").containsKey("Retry-After");
        // a token a minute: the next one is most of a minute away
        assertThat(Long.parseLong(headers.get("Retry-After"))).isBetween(30L, 60L);
        assertThat(headers.get("RateLimit")).isEqualTo("\"account-minute\";r=0;t=" + headers.get("Retry-After"));
    }

    @Test
    void nestedDescriptorsOnTheAccountsKeyAreSpentAllOrNothing() {
        String account = account();
        RateLimitRequest both = request("envoy", descriptor("account", account), descriptor("account", account, "route", "/v1/labels"));

        RateLimitResponse first = podA.shouldRateLimit(both);
        assertThat(first.getOverallCode()).isEqualTo(Code.OK);
        assertThat(first.getStatuses(1).getCurrentLimit().getName()).isEqualTo("labels-route");
        assertThat(first.getStatuses(0).getLimitRemaining()).isEqualTo(2);
        assertThat(first.getStatuses(1).getLimitRemaining()).isEqualTo(1);
        assertThat(podA.shouldRateLimit(both).getOverallCode()).isEqualTo(Code.OK);

        RateLimitResponse denied = podA.shouldRateLimitLogged(both);
        assertThat(denied.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
        // the route limit ran out: the headers name it, whether the store or the pod's local bucket said no
        assertThat(headers(denied)).containsEntry("RateLimit-Policy", "\"labels-route\";q=1;w=120");
        assertThat(denied.getStatuses(1).getCurrentLimit()).isEqualTo(RateLimit.newBuilder()
                .setName("labels-route").setRequestsPerUnit(30).setUnit(RateLimit.Unit.HOUR).build());

        // the denied call spent nothing of the account's bucket (envoyproxy/ratelimit #1060: no counter pollution)
        RateLimitResponse accountOnly = podA.shouldRateLimit(request("envoy", descriptor("account", account)));
        assertThat(accountOnly.getOverallCode()).isEqualTo(Code.OK);
        assertThat(accountOnly.getStatuses(0).getLimitRemaining()).isZero();
    }

    @Test
    void hitsAddendIsTheCostForTheRequestAndPerDescriptor() {
        String account = account();
        RateLimitResponse two = podA.shouldRateLimit(request("envoy", descriptor("account", account)).toBuilder().setHitsAddend(2).build());
        assertThat(two.getStatuses(0).getLimitRemaining()).isEqualTo(1);

        String other = account();
        RateLimitDescriptor costsThree = descriptor("account", other).toBuilder().setHitsAddend(UInt64Value.of(3)).build();
        RateLimitResponse three = podA.shouldRateLimit(request("envoy", costsThree).toBuilder().setHitsAddend(1).build());
        assertThat(three.getOverallCode()).isEqualTo(Code.OK);
        assertThat(three.getStatuses(0).getLimitRemaining()).isZero();
    }

    @Test
    void aShadowRuleNeverDenies() {
        String trial = account();
        RateLimitRequest request = request("envoy", descriptor("trial_account", trial));
        assertThat(podA.shouldRateLimit(request).getOverallCode()).isEqualTo(Code.OK);

        RateLimitResponse counted = podA.shouldRateLimit(request);
        assertThat(counted.getOverallCode()).isEqualTo(Code.OK);
        assertThat(counted.getStatuses(0).getCode()).isEqualTo(Code.OK);
        assertThat(counted.getStatuses(0).getCurrentLimit().getName()).isEqualTo("trial-window");
        // a shadow limit is never advertised to clients
        assertThat(headers(counted)).isEmpty();
    }

    @Test
    void aDescriptorNoMappingLimitsIsOkWithNoLimit() {
        String account = account();
        RateLimitResponse response = podA.shouldRateLimit(request("envoy",
                descriptor("generic_key", "no-limit-here"), descriptor("unknown_key", "x"), descriptor("account", account)));

        assertThat(response.getOverallCode()).isEqualTo(Code.OK);
        assertThat(response.getStatuses(0)).isEqualTo(DescriptorStatus.newBuilder().setCode(Code.OK).build());
        assertThat(response.getStatuses(1)).isEqualTo(DescriptorStatus.newBuilder().setCode(Code.OK).build());
        assertThat(response.getStatuses(2).getCurrentLimit().getName()).isEqualTo("account-minute");
        assertThat(podA.shouldRateLimit(request("other-domain", descriptor("account", account))).getStatusesList())
                .containsExactly(DescriptorStatus.newBuilder().setCode(Code.OK).build());
    }

    @Test
    void oneLimitHoldsAcrossTwoPods() {
        String account = account();
        RateLimitRequest request = request("envoy", descriptor("account", account));
        int admitted = 0;
        for (int i = 0; i < 8; i++) {
            EnvoyPod pod = i % 2 == 0 ? podA : podB;
            if (pod.shouldRateLimit(request).getOverallCode() == Code.OK) {
                admitted++;
            }
        }
        assertThat(admitted).isEqualTo(3);
        assertThat(podB.shouldRateLimit(request).getOverallCode()).isEqualTo(Code.OVER_LIMIT);
        assertThat(podA.shouldRateLimit(request).getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    }

    /**
     * No descriptor value turns a limited call into an allowed one. A value the store cannot key
     * as it is (over 256 bytes, empty, a control character such as a TAB, legal in an HTTP header) was refused
     * with INVALID_ARGUMENT, which Envoy allows: the login limit beside it was never spent.
     */
    @Test
    void noDescriptorValueSwitchesOffTheLimitsOfItsCall() {
        String ip = "203.0.113." + (10 + new java.util.Random().nextInt(200)) + "-" + account();
        RateLimitRequest login = request("envoy", descriptor("remote_address", ip));
        for (int i = 0; i < 5; i++) {
            assertThat(podA.shouldRateLimit(login).getOverallCode()).isEqualTo(Code.OK);
        }
        assertThat(podA.shouldRateLimit(login).getOverallCode()).isEqualTo(Code.OVER_LIMIT);
        for (String value : List.of("a".repeat(300), "", "a\tb", "a\u0000b", "é".repeat(200), "\ud800")) {
            RateLimitResponse answer = podA.shouldRateLimit(request("envoy", descriptor("remote_address", ip), descriptor("account", value)));
            assertThat(answer.getOverallCode()).as("beside %s", printable(value)).isEqualTo(Code.OVER_LIMIT);
            assertThat(answer.getStatuses(0).getCode()).isEqualTo(Code.OVER_LIMIT);
        }
    }

    /** Such a value is limited like any other, by a key of its own: two of them never share a bucket. */
    @Test
    void aValueTheStoreCannotKeyAsItIsIsLimitedByItsDigest() {
        String suffix = account();
        for (String value : List.of("a".repeat(300) + suffix, "b".repeat(300) + suffix, "tab\t" + suffix)) {
            RateLimitRequest request = request("envoy", descriptor("account", value));
            for (int i = 0; i < 3; i++) {
                assertThat(podA.shouldRateLimit(request).getOverallCode()).as("%s, check %d", printable(value), i + 1).isEqualTo(Code.OK);
            }
            assertThat(podA.shouldRateLimit(request).getOverallCode()).as(printable(value)).isEqualTo(Code.OVER_LIMIT);
            // the same limit across the pods: the key does not depend on the pod
            assertThat(podB.shouldRateLimit(request).getOverallCode()).as(printable(value)).isEqualTo(Code.OVER_LIMIT);
        }
    }

    private static String printable(String value) {
        String shown = value.length() > 20 ? value.substring(0, 20) + "...(" + value.length() + ")" : value;
        return shown.replace("\t", "\\t").replace("\u0000", "\\0");
    }

    /**
     * A hits_addend above the rule's largest cost can never pass: OVER_LIMIT, as envoyproxy/ratelimit answers one above
     * the limit. It was INVALID_ARGUMENT, which Envoy allows, and Envoy's actions can take hits_addend from a header.
     */
    @Test
    void aCostAboveTheLargestIsOverLimitAndSpendsNothing() {
        String account = account();
        RateLimitDescriptor tooCostly = descriptor("account", account).toBuilder().setHitsAddend(UInt64Value.of(4)).build();
        RateLimitResponse answer = podA.shouldRateLimit(request("envoy", descriptor("unknown_key", "x"), tooCostly));
        assertThat(answer.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
        assertThat(answer.getStatusesList()).extracting(RateLimitResponse.DescriptorStatus::getCode).containsExactly(Code.OK, Code.OVER_LIMIT);
        RateLimitResponse huge = podA.shouldRateLimit(request("envoy",
                descriptor("account", account).toBuilder().setHitsAddend(UInt64Value.of(-1L)).build()));
        assertThat(huge.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
        // nothing was spent: the whole burst of 3 is still there
        RateLimitResponse three = podA.shouldRateLimit(request("envoy", descriptor("account", account).toBuilder().setHitsAddend(UInt64Value.of(3)).build()));
        assertThat(three.getOverallCode()).isEqualTo(Code.OK);
    }

    /** A domain without a mapping: a descriptor says what the request is, and the rules whose match covers it are spent. */
    @Test
    void inADomainWithoutAMappingADescriptorIsReadAsAttributes() {
        String account = account();
        RateLimitRequest growth = request("envoy-attributes", descriptor("plan", "growth", "route", "/v1/labels", "api_key", account));
        RateLimitResponse first = podA.shouldRateLimit(growth);
        assertThat(first.getOverallCode()).isEqualTo(Code.OK);
        assertThat(first.getStatuses(0).getCurrentLimit().getName()).isEqualTo("attributes-growth");
        assertThat(first.getStatuses(0).getLimitRemaining()).isEqualTo(1);

        // the export route adds its own rule: the descriptor says the stricter of the two
        RateLimitRequest export = request("envoy-attributes", descriptor("plan", "growth", "route", "/v1/exports/2026", "api_key", account));
        RateLimitResponse exported = podB.shouldRateLimit(export);
        assertThat(exported.getOverallCode()).isEqualTo(Code.OK);
        assertThat(exported.getStatuses(0).getLimitRemaining()).isEqualTo(0);
        RateLimitResponse again = podA.shouldRateLimit(export);
        assertThat(again.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
        assertThat(again.getStatuses(0).getCode()).isEqualTo(Code.OVER_LIMIT);

        // no api_key: one counter for every such call, never none
        RateLimitRequest keyless = request("envoy-attributes", descriptor("plan", "growth"));
        podA.shouldRateLimit(keyless);
        podA.shouldRateLimit(keyless);
        assertThat(podA.shouldRateLimit(keyless).getOverallCode()).isEqualTo(Code.OVER_LIMIT);
        assertThat(podA.shouldRateLimit(request("envoy-attributes", descriptor("plan", "free", "api_key", account))).getStatuses(0).hasCurrentLimit())
                .as("no rule of the free plan: no limit").isFalse();
    }

    /** Envoy's per-request limit is not applied: the rule's limit holds, and the override is counted for the operator to see. */
    @Test
    void aPerRequestLimitOverrideIsCountedAndTheRulesLimitHolds() {
        double before = podA.meters().get(RlsMetrics.OVERRIDES_IGNORED).counter().count();
        RateLimitDescriptor generous = descriptor("account", account()).toBuilder()
                .setLimit(RateLimitDescriptor.RateLimitOverride.newBuilder().setRequestsPerUnit(1_000_000)
                        .setUnit(io.envoyproxy.envoy.type.v3.RateLimitUnit.SECOND)).build();
        for (int i = 0; i < 3; i++) {
            assertThat(podA.shouldRateLimit(request("envoy", generous)).getOverallCode()).isEqualTo(Code.OK);
        }
        RateLimitResponse fourth = podA.shouldRateLimit(request("envoy", generous));
        assertThat(fourth.getOverallCode()).as("account-minute's burst of 3, not the override's million").isEqualTo(Code.OVER_LIMIT);
        assertThat(fourth.getStatuses(0).getCurrentLimit().getName()).isEqualTo("account-minute");
        assertThat(podA.meters().get(RlsMetrics.OVERRIDES_IGNORED).counter().count() - before).isEqualTo(4);
    }

    @Test
    void badRequestsAreInvalidArgumentNamingTheDescriptor() {
        assertThatThrownBy(() -> podA.shouldRateLimit(request("envoy")))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.getStatus().getDescription()).isEqualTo("descriptors must hold at least one descriptor");
                });
        assertThatThrownBy(() -> podA.shouldRateLimit(request("envoy", descriptor("account", account()), RateLimitDescriptor.getDefaultInstance())))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.getStatus().getDescription()).isEqualTo("descriptors[1].entries must hold at least one entry");
                });
        assertThatThrownBy(() -> podA.shouldRateLimit(request("", descriptor("account", account()))))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
    }

    @Test
    void aMessageOverTheSizeLimitIsRefusedUnread() {
        RateLimitRequest huge = request("envoy", descriptor("account", "x".repeat(70 * 1024)));
        assertThatThrownBy(() -> podA.shouldRateLimit(huge))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
        // the channel still serves
        assertThat(podA.shouldRateLimit(request("envoy", descriptor("account", account()))).getOverallCode()).isEqualTo(Code.OK);
    }

    @Test
    void theHealthServiceSaysServingAndReflectionIsOff() throws Exception {
        HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(podA.channel).withDeadlineAfter(5, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(health.check(HealthCheckRequest.getDefaultInstance()).getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
            assertThat(health.check(HealthCheckRequest.newBuilder().setService("envoy.service.ratelimit.v3.RateLimitService").build())
                    .getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
        });

        CompletableFuture<Status> reflection = new CompletableFuture<>();
        StreamObserver<ServerReflectionRequest> ask = ServerReflectionGrpc.newStub(podA.channel).serverReflectionInfo(new StreamObserver<>() {
            @Override
            public void onNext(ServerReflectionResponse value) {
                reflection.complete(Status.OK);
            }

            @Override
            public void onError(Throwable t) {
                reflection.complete(Status.fromThrowable(t));
            }

            @Override
            public void onCompleted() {
                reflection.complete(Status.OK);
            }
        });
        ask.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());
        ask.onCompleted();
        assertThat(reflection.get(5, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    }

    private static long ceilSeconds(DescriptorStatus status) {
        long ms = status.getDurationUntilReset().getSeconds() * 1000 + status.getDurationUntilReset().getNanos() / 1_000_000;
        return (ms + 999) / 1000;
    }

    private static String account() {
        return "acct_" + UUID.randomUUID();
    }
}
