package dev.tollgate.client;

import dev.tollgate.client.affinity.DnsPodSource;
import dev.tollgate.client.affinity.Rendezvous;
import dev.tollgate.client.testing.BlackHole;
import dev.tollgate.client.testing.CheckPod;
import dev.tollgate.client.testing.HeadersSeen;
import dev.tollgate.client.testing.LoopbackDns;
import dev.tollgate.client.testing.SilentServer;
import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.RateLimitHeaders;
import dev.tollgate.common.check.Verdict;
import dev.tollgate.testsupport.redis.RedisCluster;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.util.context.Context;

import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The client against real check-service pods on a real Redis Cluster, over loopback HTTP: answers, the deadline,
 * each fail mode, key affinity and a killed pod. Two pods share one port on 127.0.0.2 and 127.0.0.3, as a headless
 * Service's pods share one, so the DNS discovery test can name them by A records alone.
 */
class ClientIT {

    static final Path RULES = Path.of("src/test/resources/client-rules.yml");
    /** Above the pods' own check deadline (400 ms here), so a slow store is the rule's fail mode, not the client's; generous for a loaded 2-core box. */
    static final Duration DEADLINE = Duration.ofSeconds(3);

    static String region;
    static int port;
    static CheckPod podA;
    static CheckPod podB;
    static TollgateClient client;
    /** The traceparent of every request podA received. */
    static final HeadersSeen traceparentsAtA = new HeadersSeen("traceparent");

    @BeforeAll
    static void startPods() {
        region = "client-it-" + UUID.randomUUID();
        port = CheckPod.portFreeOn("127.0.0.2", "127.0.0.3");
        podA = CheckPod.start("127.0.0.2", port, RedisCluster.shared().seedUris(), region, "a", RULES, Map.of(),
                context -> context.registerBean(HeadersSeen.class, () -> traceparentsAtA));
        podB = CheckPod.start("127.0.0.3", port, RedisCluster.shared().seedUris(), region, "b", RULES, Map.of());
        client = TollgateClient.builder().pods(List.of(podA.base(), podB.base())).deadline(DEADLINE).build();
        warmUp(client, podA, podB);
    }

    /**
     * A first check loads the classes of the client and the pod and the pod's scripts into Redis, which on a loaded
     * 2-core box can take seconds: done here, so that the tests time what they are about.
     */
    static void warmUp(TollgateClient client, CheckPod... pods) {
        for (CheckPod pod : pods) {
            try (TollgateClient direct = TollgateClient.builder().endpoint(pod.base()).deadline(Duration.ofSeconds(30)).build()) {
                assertThat(direct.checkBlocking(roomy("acct_warmup")).fallback()).isNull();
            }
        }
        for (int i = 0; i < 10; i++) {
            client.check(roomy("acct_warmup_" + i), Duration.ofSeconds(30)).block();
        }
    }

    @AfterAll
    static void stopPods() {
        if (client != null) {
            client.close();
        }
        if (podB != null) {
            podB.close();
        }
        if (podA != null) {
            podA.close();
        }
    }

    static CheckRequest tight(String key) {
        return new CheckRequest("public-api", List.of(CheckEntry.of("api-tight", key, 1)));
    }

    static CheckRequest roomy(String key) {
        return new CheckRequest("public-api", List.of(CheckEntry.of("api-roomy", key, 1)));
    }

    @Test
    void allowsUpToTheBurstThenDenies() {
        String key = "acct_" + UUID.randomUUID();
        for (int i = 0; i < 3; i++) {
            CheckResult result = client.check(tight(key)).block();
            assertThat(result.verdict()).as("check %d", i + 1).isEqualTo(Verdict.ALLOW);
            assertThat(result.fallback()).isNull();
            assertThat(result.response().entries().get(0).remaining()).isEqualTo(2 - i);
            assertThat(result.headers().policy()).isEqualTo("\"api-tight\";q=1;w=60");
            assertThat(result.headers().rateLimit()).startsWith("\"api-tight\";r=" + (2 - i) + ";t=");
            assertThat(result.headers().retryAfter()).isNull();
            if (i == 0) {
                System.out.println("an allowed check: " + result);
            }
        }
        CheckResult denied = client.check(tight(key)).block();
        assertThat(denied.verdict()).isEqualTo(Verdict.DENY);
        assertThat(denied.fallback()).isNull();
        assertThat(denied.response().entries().get(0).retryMs()).isPositive();
        assertThat(denied.headers().rateLimit()).startsWith("\"api-tight\";r=0;t=");
        assertThat(Long.parseLong(denied.headers().retryAfter())).isBetween(1L, 60L);
        System.out.println("a denied check: " + denied);
        // the same values in the body, for a gateway that builds its own answer
        assertThat(denied.response().headers()).isEqualTo(denied.headers().asMap());
    }

    @Test
    void theBlockingCallAnswersAsTheReactiveOne() {
        String key = "acct_" + UUID.randomUUID();
        List<Verdict> verdicts = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            verdicts.add(client.checkBlocking(tight(key)).verdict());
        }
        assertThat(verdicts).containsExactly(Verdict.ALLOW, Verdict.ALLOW, Verdict.ALLOW, Verdict.DENY);
    }

    @Test
    void aKeysChecksAllGoToTheSamePodAndKeysSpreadOverBoth() {
        Rendezvous ring = Rendezvous.of(List.of(podA.base().getHost() + ":" + port, podB.base().getHost() + ":" + port));
        Set<URI> used = new HashSet<>();
        for (int k = 0; k < 20; k++) {
            String key = "acct_" + UUID.randomUUID();
            URI expected = ring.first(key) == 0 ? podA.base() : podB.base();
            for (int i = 0; i < 5; i++) {
                CheckResult result = client.check(roomy(key)).block();
                assertThat(result.fallback()).isNull();
                assertThat(result.pod()).as("key %s, check %d", key, i).isEqualTo(expected);
            }
            used.add(expected);
        }
        assertThat(used).containsExactlyInAnyOrder(podA.base(), podB.base());
    }

    static CheckRequest byAttributes(String plan, String key, long cost) {
        return CheckRequest.byAttributes("public-api", Map.of("plan", plan, "route", "/v1/labels", "api_key", key), cost);
    }

    @Test
    void aCheckByAttributesSpendsTheRulesItsPlanFindsOnTheKeysPod() {
        String key = "acct_" + UUID.randomUUID();
        Rendezvous ring = Rendezvous.of(List.of(podA.base().getHost() + ":" + port, podB.base().getHost() + ":" + port));
        URI keysPod = ring.first(key) == 0 ? podA.base() : podB.base();
        for (int i = 0; i < 3; i++) {
            CheckResult result = client.check(byAttributes("test", key, 1)).block();
            assertThat(result.verdict()).as("check %d", i + 1).isEqualTo(Verdict.ALLOW);
            assertThat(result.fallback()).isNull();
            assertThat(result.pod()).as("the api_key's pod, as for a named check of that key").isEqualTo(keysPod);
            assertThat(result.response().entries()).extracting(e -> e.rule()).containsExactly("api-tight");
            assertThat(result.response().entries().get(0).remaining()).isEqualTo(2 - i);
            assertThat(result.headers().policy()).isEqualTo("\"api-tight\";q=1;w=60");
        }
        // the bucket the named check spends: it is empty now
        CheckResult named = client.check(tight(key)).block();
        assertThat(named.verdict()).isEqualTo(Verdict.DENY);
        assertThat(named.pod()).isEqualTo(keysPod);
        assertThat(client.check(byAttributes("test", key, 1)).block().verdict()).isEqualTo(Verdict.DENY);
    }

    @Test
    void aCheckByAttributesSendsItsCostAndNoRuleFoundIsAnAllowWithoutEntries() {
        String key = "acct_" + UUID.randomUUID();
        CheckResult costly = client.check(byAttributes("roomy", key, 7)).block();
        assertThat(costly.fallback()).isNull();
        assertThat(costly.response().entries()).singleElement().satisfies(entry -> {
            assertThat(entry.rule()).isEqualTo("api-roomy");
            assertThat(entry.remaining()).isEqualTo(2000 - 7);
        });
        CheckResult none = client.check(byAttributes("enterprise", key, 1)).block();
        assertThat(none.verdict()).isEqualTo(Verdict.ALLOW);
        assertThat(none.fallback()).as("Tollgate answered: no rule applies").isNull();
        assertThat(none.response().entries()).isEmpty();
        assertThat(none.headers().policy()).isNull();
    }

    @Test
    void aCheckByAttributesWithoutTheIdentityItsRuleIsKeyedByIsAProblem() {
        CheckRequest noIp = CheckRequest.byAttributes("auth", Map.of("route", "/login"), 1);
        assertThatThrownBy(() -> client.checkBlocking(noIp))
                .isInstanceOfSatisfying(TollgateProblemException.class, e -> {
                    assertThat(e.status()).isEqualTo(422);
                    assertThat(e.body()).contains("attributes.ip");
                });
    }

    @Test
    void keepsItsConnectionsAliveAcrossChecks() {
        try (TollgateClient fresh = TollgateClient.builder().endpoint(podA.base()).deadline(Duration.ofSeconds(5)).build()) {
            long started = System.nanoTime();
            for (int i = 0; i < 200; i++) {
                assertThat(fresh.checkBlocking(roomy("acct_keepalive")).fallback()).isNull();
            }
            System.out.printf("200 sequential checks over kept-alive connections: %.2f ms each, %d connections%n",
                    (System.nanoTime() - started) / 200 / 1e6, fresh.connectionsOpened());
            // a connection goes back to the pool just after its answer is handed over, so a check that starts at once
            // may find none idle and open one more (seen once or twice in 200 on a loaded box); never one per check
            assertThat(fresh.connectionsOpened()).isBetween(1L, 3L);
        }
    }

    @ParameterizedTest
    @EnumSource(FailMode.class)
    void aPodThatNeverAnswersGetsTheFailModeWithinTheDeadline(FailMode mode) throws Exception {
        Duration deadline = Duration.ofMillis(300);
        try (SilentServer silent = new SilentServer();
             TollgateClient late = TollgateClient.builder().endpoint(silent.base()).deadline(deadline).failMode(mode).build()) {
            // the first call of a fresh client also loads its classes, which a loaded box can stretch to seconds; the
            // second shows what the deadline holds to
            for (int call = 1; call <= 2; call++) {
                long started = System.nanoTime();
                if (mode == FailMode.ERROR) {
                    assertThatThrownBy(() -> late.checkBlocking(tight("acct_late")))
                            .isInstanceOfSatisfying(TollgateUnavailableException.class,
                                    e -> assertThat(e.reason()).isEqualTo(ClientFallback.Reason.DEADLINE));
                } else {
                    CheckResult result = late.checkBlocking(tight("acct_late"));
                    System.out.println("a client fallback: " + result);
                    assertThat(result.verdict()).isEqualTo(mode == FailMode.ALLOW ? Verdict.ALLOW : Verdict.DENY);
                    assertThat(result.fallback().reason()).isEqualTo(ClientFallback.Reason.DEADLINE);
                    assertThat(result.response()).isNull();
                    assertThat(result.headers()).isEqualTo(RateLimitHeaders.NONE);
                }
                long tookMs = (System.nanoTime() - started) / 1_000_000;
                System.out.printf("fail mode %s, call %d against a silent pod: answered after %d ms (deadline %d ms)%n",
                        mode, call, tookMs, deadline.toMillis());
                assertThat(tookMs).as("call %d answered at the deadline, not long after", call)
                        .isBetween(deadline.toMillis() - 5, deadline.toMillis() + (call == 1 ? 3_000 : 300));
            }
        }
    }

    @Test
    void aPerCallDeadlineOverridesTheClients() throws Exception {
        try (SilentServer silent = new SilentServer();
             TollgateClient late = TollgateClient.builder().endpoint(silent.base()).deadline(Duration.ofSeconds(30)).build()) {
            long started = System.nanoTime();
            CheckResult result = late.checkBlocking(tight("acct_late"), Duration.ofMillis(100));
            assertThat(result.fallback().reason()).isEqualTo(ClientFallback.Reason.DEADLINE);
            assertThat((System.nanoTime() - started) / 1_000_000).isLessThan(1_000);
        }
    }

    @Test
    void aPortThatRefusesIsUnreachableAtOnce() throws Exception {
        int closed;
        try (ServerSocket probe = new ServerSocket(0)) {
            closed = probe.getLocalPort();
        }
        try (TollgateClient nowhere = TollgateClient.builder().endpoint(URI.create("http://127.0.0.1:" + closed))
                .deadline(Duration.ofSeconds(20)).failMode(FailMode.DENY).build()) {
            long started = System.nanoTime();
            CheckResult result = nowhere.checkBlocking(tight("acct_nowhere"));
            assertThat(result.verdict()).isEqualTo(Verdict.DENY);
            assertThat(result.fallback().reason()).isEqualTo(ClientFallback.Reason.UNREACHABLE);
            assertThat((System.nanoTime() - started) / 1_000_000).as("a refused connect does not wait for the deadline").isLessThan(5_000);
        }
    }

    @Test
    void aRefusedCheckIsAProblemNeverAFallback() {
        CheckRequest negativeCost = new CheckRequest("public-api", List.of(CheckEntry.of("api-tight", "acct_x", -1)));
        assertThatThrownBy(() -> client.checkBlocking(negativeCost))
                .isInstanceOfSatisfying(TollgateProblemException.class, e -> {
                    assertThat(e.status()).isEqualTo(422);
                    assertThat(e.code()).isEqualTo("invalid_request");
                    assertThat(e.body()).contains("entries[0].cost");
                });
    }

    @Test
    void sendsTheServiceTokenAPodAsksFor() {
        String token = "client-it-token-" + UUID.randomUUID();
        try (CheckPod guarded = CheckPod.start("127.0.0.1", 0, RedisCluster.shared().seedUris(), region + "-guarded", "g", RULES,
                Map.of("tollgate.access.tokens", token));
             TollgateClient without = TollgateClient.builder().endpoint(guarded.base()).deadline(Duration.ofSeconds(30)).build();
             TollgateClient with = TollgateClient.builder().endpoint(guarded.base()).token(token).deadline(Duration.ofSeconds(30)).build()) {
            assertThatThrownBy(() -> without.checkBlocking(roomy("acct_token")))
                    .isInstanceOfSatisfying(TollgateProblemException.class, e -> assertThat(e.status()).isEqualTo(401));
            assertThat(with.checkBlocking(roomy("acct_token")).fallback()).isNull();
        }
    }

    @Test
    void aFailClosedRuleWhoseStoreIsDownIsADenyEvenWhenTheClientFailsOpen() throws Exception {
        int noRedis;
        try (ServerSocket probe = new ServerSocket(0)) {
            noRedis = probe.getLocalPort();
        }
        try (CheckPod storeless = CheckPod.start("127.0.0.1", 0, List.of("redis://127.0.0.1:" + noRedis), region + "-storeless", "s", RULES,
                Map.of("spring.data.redis.connect-timeout", "200ms"));
             TollgateClient open = TollgateClient.builder().endpoint(storeless.base()).deadline(DEADLINE).failMode(FailMode.ALLOW).build()) {
            CheckResult login = open.checkBlocking(new CheckRequest("auth", List.of(CheckEntry.of("login-ip", "203.0.113.9", 1))));
            assertThat(login.verdict()).isEqualTo(Verdict.DENY);
            assertThat(login.fallback().reason()).isEqualTo(ClientFallback.Reason.CLOSED_RULE_UNAVAILABLE);
            assertThat(login.fallback().detail()).containsAnyOf("store_unavailable", "store_timeout");

            CheckResult api = open.checkBlocking(tight("acct_storeless"));
            assertThat(api.verdict()).as("an open rule is answered by the pod's fallback bucket").isEqualTo(Verdict.ALLOW);
            assertThat(api.fallback()).as("that is Tollgate's answer, not the client's").isNull();
            assertThat(api.response().entries().get(0).fallback()).isEqualTo("fail_open");
        }
    }

    @Test
    void aKilledPodsKeysMoveToTheirNextPodWithoutAHang() {
        CheckPod third = CheckPod.start(RedisCluster.shared().seedUris(), region, "c", RULES);
        List<URI> all = List.of(podA.base(), podB.base(), third.base());
        try (TollgateClient three = TollgateClient.builder().pods(all).deadline(DEADLINE).build()) {
            warmUp(three, third);
            Rendezvous ring = Rendezvous.of(all.stream().map(uri -> uri.getHost() + ":" + uri.getPort()).toList());
            String key = null;
            URI next = null;
            for (int i = 0; key == null; i++) {
                int[] order = ring.order("acct_moving_" + i);
                if (order[0] == 2) {
                    key = "acct_moving_" + i;
                    next = all.get(order[1]);
                }
            }
            for (int i = 0; i < 5; i++) {
                assertThat(three.checkBlocking(roomy(key)).pod()).isEqualTo(third.base());
            }

            third.close();

            List<CheckResult> after = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                long started = System.nanoTime();
                after.add(three.checkBlocking(roomy(key)));
                assertThat(Duration.ofNanos(System.nanoTime() - started)).as("check %d after the kill", i).isLessThan(DEADLINE.plusMillis(200));
            }
            // the check racing the pod's last FIN may be lost in flight (never re-sent: it may have been spent); none after it
            assertThat(after.subList(1, after.size())).allSatisfy(result -> {
                assertThat(result.fallback()).isNull();
                assertThat(result.verdict()).isEqualTo(Verdict.ALLOW);
            });
            assertThat(after.subList(1, after.size())).extracting(CheckResult::pod).containsOnly(next);
        } finally {
            third.close();
        }
    }

    @Test
    void aPodThatAcceptsButNeverAnswersLosesItsKeysAtItsFirstDeadline() throws Exception {
        try (SilentServer silent = new SilentServer()) {
            KeysOverABadPod outcome = checkDistinctKeys(silent.base(), Duration.ofSeconds(1));
            // the first of its keys sent its check and can only wait; every later one must go to the live pod
            assertThat(outcome.deadlines()).as("checks answered by the fail mode at the deadline").isBetween(1, 2);
            assertThat(outcome.badKeysAnsweredByLivePod()).isGreaterThanOrEqualTo(outcome.badKeys() - 2);
        }
    }

    @Test
    void aPodThatDropsConnectsLosesItsKeysWithinTheirOwnDeadline() throws Exception {
        // below the old fixed 500 ms connect timeout: a connect that slow could never fail in time
        try (BlackHole dead = new BlackHole()) {
            KeysOverABadPod outcome = checkDistinctKeys(dead.base(), Duration.ofMillis(400));
            // nothing was sent to the dead pod, so even its first key's check may move on to the live pod in time
            assertThat(outcome.deadlines()).as("checks answered by the fail mode at the deadline").isLessThanOrEqualTo(1);
            assertThat(outcome.badKeysAnsweredByLivePod()).isGreaterThanOrEqualTo(outcome.badKeys() - 1);
        }
    }

    /** Of 200 keys checked once each, in turn: those whose first pod was the bad one, and how their checks ended. */
    record KeysOverABadPod(int badKeys, int badKeysAnsweredByLivePod, int deadlines) {
    }

    /**
     * One check for each of 200 distinct keys over podA and a pod that never answers, one after the other, so that
     * "after the bad pod's first deadline" is a count, not a time. The bad pod stays down for the whole run: what is
     * measured is how its keys fare once it has failed once, not when it is tried again.
     */
    static KeysOverABadPod checkDistinctKeys(URI bad, Duration deadline) {
        List<URI> pods = List.of(podA.base(), bad);
        Rendezvous ring = Rendezvous.of(pods.stream().map(uri -> uri.getHost() + ":" + uri.getPort()).toList());
        String run = UUID.randomUUID().toString();
        try (TollgateClient two = TollgateClient.builder().pods(pods).deadline(deadline).podDownFor(Duration.ofMinutes(10)).build()) {
            String warm = null;
            for (int i = 0; warm == null; i++) {
                if (ring.first("acct_warm_" + run + i) == 0) {
                    warm = "acct_warm_" + run + i;
                }
            }
            assertThat(two.check(roomy(warm), Duration.ofSeconds(30)).block().pod()).isEqualTo(podA.base());

            int badKeys = 0;
            int badKeysAnsweredByLivePod = 0;
            int deadlines = 0;
            for (int k = 0; k < 200; k++) {
                String key = "acct_" + run + "_" + k;
                CheckResult result = two.checkBlocking(roomy(key));
                boolean badFirst = ring.first(key) == 1;
                if (badFirst) {
                    badKeys++;
                }
                if (result.fallback() == null) {
                    assertThat(result.pod()).as("key %s answered", key).isEqualTo(podA.base());
                    if (badFirst) {
                        badKeysAnsweredByLivePod++;
                    }
                } else if (result.fallback().reason() == ClientFallback.Reason.DEADLINE) {
                    deadlines++;
                }
            }
            System.out.printf("200 keys over %s and a bad pod %s (deadline %d ms, connect timeout %d ms): %d keys went to the bad pod first,"
                            + " %d of them answered by the live pod, %d fallbacks at the deadline%n", podA.base(), bad, deadline.toMillis(),
                    two.settings().connectTimeout().toMillis(), badKeys, badKeysAnsweredByLivePod, deadlines);
            // about half; far fewer would mean the bad pod was not really in the keys' way
            assertThat(badKeys).isGreaterThan(50);
            return new KeysOverABadPod(badKeys, badKeysAnsweredByLivePod, deadlines);
        }
    }

    @Test
    void findsThePodsByTheHeadlessServicesARecordsAndFollowsThem() throws Exception {
        try (LoopbackDns dns = new LoopbackDns("tollgate-check.test", List.of("127.0.0.2", "127.0.0.3"));
             TollgateClient discovering = TollgateClient.builder()
                     .podSource(DnsPodSource.start("tollgate-check.test", port, Duration.ofMillis(200), dns.address()))
                     .deadline(DEADLINE).build()) {
            Set<URI> used = new HashSet<>();
            for (int k = 0; k < 20; k++) {
                CheckResult result = discovering.checkBlocking(roomy("acct_dns_" + k));
                assertThat(result.fallback()).isNull();
                used.add(result.pod());
            }
            assertThat(used).containsExactlyInAnyOrder(podA.base(), podB.base());

            dns.answer(List.of("127.0.0.3"));
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            Set<URI> usedAfter = new HashSet<>();
            while (System.nanoTime() < deadline) {
                usedAfter.clear();
                for (int k = 0; k < 20; k++) {
                    usedAfter.add(discovering.checkBlocking(roomy("acct_dns_" + k)).pod());
                }
                if (usedAfter.equals(Set.of(podB.base()))) {
                    break;
                }
                Thread.sleep(50);
            }
            assertThat(usedAfter).containsExactly(podB.base());

            dns.answer(List.of());
            Thread.sleep(500);
            assertThat(discovering.checkBlocking(roomy("acct_dns_0")).pod())
                    .as("a lookup that finds nothing keeps the last pods").isEqualTo(podB.base());
        }
    }

    @Test
    void noPodKnownIsTheFailModeCountedAsNoPodsAndUnhealthy() throws Exception {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (LoopbackDns dns = new LoopbackDns("nothing.test", List.of());
             TollgateClient none = TollgateClient.builder()
                     .podSource(DnsPodSource.start("nothing.test", port, Duration.ofMillis(200), dns.address()))
                     .failMode(FailMode.DENY).meterRegistry(meters).build()) {
            for (int i = 0; i < 3; i++) {
                CheckResult result = none.checkBlocking(tight("acct_none"));
                assertThat(result.verdict()).isEqualTo(Verdict.DENY);
                assertThat(result.fallback().reason()).isEqualTo(ClientFallback.Reason.NO_PODS);
                assertThat(result.fallback().detail()).contains("nothing.test");
                assertThat(result.pod()).isNull();
            }
            assertThat(checks(meters, ClientMetrics.FALLBACK, "no_pods")).isEqualTo(3);
            assertThat(meters.get(ClientMetrics.PODS_KNOWN).gauge().value()).isZero();
            ClientHealth health = none.health();
            System.out.println("the health of a client that knows no pod: " + health);
            assertThat(health.podsKnown()).isFalse();
            assertThat(health.source()).isEqualTo("the DNS A records of nothing.test (port " + port + ")");

            dns.answer(List.of("127.0.0.2"));
            long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!none.health().podsKnown() && System.nanoTime() < until) {
                Thread.sleep(50);
            }
            assertThat(none.health().podsKnown()).as("a pod listed again").isTrue();
            assertThat(none.check(roomy("acct_none"), Duration.ofSeconds(30)).block().pod()).isEqualTo(podA.base());
            assertThat(meters.get(ClientMetrics.PODS_KNOWN).gauge().value()).isEqualTo(1);
        }
        assertThat(meters.find(ClientMetrics.PODS_KNOWN).gauge()).as("a closed client's gauges go with it").isNull();
    }

    static double checks(SimpleMeterRegistry meters, String outcome, String reason) {
        Counter counter = meters.find(ClientMetrics.CHECKS).tags(ClientMetrics.OUTCOME, outcome, ClientMetrics.REASON, reason).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void theMetersCountEveryOutcomeAndItsReason() throws Exception {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        int closed;
        try (ServerSocket probe = new ServerSocket(0)) {
            closed = probe.getLocalPort();
        }
        String key = "acct_" + UUID.randomUUID();
        try (TollgateClient metered = TollgateClient.builder().endpoint(podA.base()).deadline(DEADLINE).meterRegistry(meters).build();
             SilentServer silent = new SilentServer();
             TollgateClient late = TollgateClient.builder().endpoint(silent.base()).deadline(Duration.ofMillis(300)).meterRegistry(meters).build();
             TollgateClient refused = TollgateClient.builder().endpoint(URI.create("http://127.0.0.1:" + closed)).meterRegistry(meters)
                     .failMode(FailMode.ERROR).build()) {
            for (int i = 0; i < 4; i++) {
                metered.checkBlocking(tight(key));
            }
            assertThatThrownBy(() -> metered.checkBlocking(new CheckRequest("public-api", List.of(CheckEntry.of("api-tight", key, -1)))))
                    .isInstanceOf(TollgateProblemException.class);
            assertThat(late.checkBlocking(tight(key)).fallback().reason()).isEqualTo(ClientFallback.Reason.DEADLINE);
            assertThatThrownBy(() -> refused.checkBlocking(tight(key))).isInstanceOf(TollgateUnavailableException.class);

            assertThat(checks(meters, ClientMetrics.ALLOW, ClientMetrics.NONE)).isEqualTo(3);
            assertThat(checks(meters, ClientMetrics.DENY, ClientMetrics.NONE)).isEqualTo(1);
            assertThat(checks(meters, ClientMetrics.FALLBACK, ClientMetrics.PROBLEM)).isEqualTo(1);
            assertThat(checks(meters, ClientMetrics.FALLBACK, "timeout")).isEqualTo(1);
            assertThat(checks(meters, ClientMetrics.FALLBACK, "connect")).as("under FailMode.ERROR too").isEqualTo(1);
            Timer allowed = meters.get(ClientMetrics.CHECK_DURATION).tag(ClientMetrics.OUTCOME, ClientMetrics.ALLOW).timer();
            assertThat(allowed.count()).isEqualTo(3);
            Timer fallbacks = meters.get(ClientMetrics.CHECK_DURATION).tag(ClientMetrics.OUTCOME, ClientMetrics.FALLBACK).timer();
            assertThat(fallbacks.max(TimeUnit.MILLISECONDS)).as("the silent pod's deadline").isGreaterThanOrEqualTo(295);
            // the silent pod and the refusing one failed; the pod that answered a problem did not
            assertThat(late.health().downPods()).isEqualTo(1);
            assertThat(refused.health().downPods()).isEqualTo(1);
            assertThat(metered.health()).isEqualTo(new ClientHealth(1, 0, "the fixed address " + podA.base()));
            System.out.println("the client's meters: " + meters.getMetersAsString());
        }
    }

    @Test
    void aBlackHoledPodCostsItsKeysOneDeadlineNotOnePerCheck() throws Exception {
        Duration deadline = Duration.ofMillis(400);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (BlackHole dead = new BlackHole();
             TollgateClient two = TollgateClient.builder().pods(List.of(podA.base(), dead.base())).deadline(deadline)
                     .podDownFor(Duration.ofSeconds(10)).meterRegistry(meters).build()) {
            List<String> deadsKeys = keysFirstOn(dead.base(), List.of(podA.base(), dead.base()), 40);
            assertThat(two.check(roomy("acct_warm_" + UUID.randomUUID()), Duration.ofSeconds(30)).block().fallback()).isNull();
            int checks = deadsKeys.size();
            long started = System.nanoTime();
            for (String key : deadsKeys) {
                CheckResult result = two.checkBlocking(roomy(key));
                assertThat(result.fallback()).as("key %s: nothing was sent to the dead pod, so its next pod answers", key).isNull();
                assertThat(result.pod()).isEqualTo(podA.base());
            }
            long tookMs = (System.nanoTime() - started) / 1_000_000;
            System.out.printf("%d checks of a black-holed pod's keys (deadline %d ms, connect timeout %d ms): %d ms in all%n", checks,
                    deadline.toMillis(), two.settings().connectTimeout().toMillis(), tookMs);
            // one connect timeout (200 ms) for the first, a few ms for each after it; one timeout each would be 8 s
            assertThat(tookMs).as("all %d checks together", checks).isLessThan(deadline.toMillis() * 4);
            assertThat(two.health().downPods()).isEqualTo(1);
            assertThat(meters.get(ClientMetrics.PODS_DOWN).gauge().value()).isEqualTo(1);
            assertThat(meters.get(ClientMetrics.PODS_KNOWN).gauge().value()).isEqualTo(2);
            assertThat(checks(meters, ClientMetrics.ALLOW, ClientMetrics.NONE)).isEqualTo(checks + 1);
        }
    }

    @Test
    void aPodThatComesBackGetsItsKeysBackAfterItsProbe() throws Exception {
        BlackHole dead = new BlackHole();
        URI address = dead.base();
        List<URI> pods = List.of(podA.base(), address);
        String key = keysFirstOn(address, pods, 1).get(0);
        CheckPod back = null;
        try (TollgateClient two = TollgateClient.builder().pods(pods).deadline(DEADLINE)
                .podDownFor(Duration.ofMillis(300)).podDownForAtMost(Duration.ofSeconds(1)).build()) {
            assertThat(two.checkBlocking(roomy(key)).pod()).as("while its pod is black-holed").isEqualTo(podA.base());
            assertThat(two.health().downPods()).isEqualTo(1);

            dead.close();
            back = CheckPod.start("127.0.0.1", address.getPort(), RedisCluster.shared().seedUris(), region, "back", RULES, Map.of());
            warmUp(two, back);
            long ready = System.nanoTime();
            CheckResult result;
            do {
                result = two.checkBlocking(roomy(key));
                assertThat(result.fallback()).as("a probe that fails moves on to the next pod").isNull();
                Thread.sleep(20);
            } while (!result.pod().equals(address) && System.nanoTime() - ready < Duration.ofSeconds(20).toNanos());
            long tookMs = (System.nanoTime() - ready) / 1_000_000;
            System.out.printf("the key came back to its pod %d ms after it was ready (probes every 300 ms, doubling to 1 s)%n", tookMs);
            assertThat(result.pod()).isEqualTo(address);
            assertThat(tookMs).as("within the longest wait for a probe, with room for a loaded box").isLessThan(5_000);
            assertThat(two.health().downPods()).isZero();
            for (int i = 0; i < 5; i++) {
                assertThat(two.checkBlocking(roomy(key)).pod()).isEqualTo(address);
            }
        } finally {
            dead.close();
            if (back != null) {
                back.close();
            }
        }
    }

    /** Keys whose first pod, by rendezvous over these pods, is the given one. */
    static List<String> keysFirstOn(URI pod, List<URI> pods, int count) {
        Rendezvous ring = Rendezvous.of(pods.stream().map(uri -> uri.getHost() + ":" + uri.getPort()).toList());
        int index = pods.indexOf(pod);
        List<String> keys = new ArrayList<>();
        String run = UUID.randomUUID().toString();
        for (int i = 0; keys.size() < count; i++) {
            String key = "acct_" + run + "_" + i;
            if (ring.first(key) == index) {
                keys.add(key);
            }
        }
        return keys;
    }

    @Test
    void sendsTheCallersTraceparent() {
        String fromContext = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        String fromHook = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        try (TollgateClient traced = TollgateClient.builder().endpoint(podA.base()).deadline(DEADLINE).traceparent(() -> fromHook).build();
             TollgateClient untraced = TollgateClient.builder().endpoint(podA.base()).deadline(DEADLINE).build()) {
            traceparentsAtA.clear();
            assertThat(traced.check(roomy("acct_traced")).contextWrite(Context.of(TollgateClient.TRACEPARENT, fromContext)).block().fallback())
                    .isNull();
            traced.checkBlocking(roomy("acct_traced"));
            untraced.check(roomy("acct_traced")).contextWrite(Context.of(TollgateClient.TRACEPARENT, "not a traceparent\r\nX-Evil: 1")).block();
            untraced.checkBlocking(roomy("acct_traced"));
            assertThat(traceparentsAtA.values()).containsExactly(fromContext, fromHook, HeadersSeen.ABSENT, HeadersSeen.ABSENT);
        }
    }
}
