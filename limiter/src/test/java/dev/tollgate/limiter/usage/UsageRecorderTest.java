package dev.tollgate.limiter.usage;

import dev.tollgate.store.key.UsageKeys;
import dev.tollgate.testsupport.time.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

class UsageRecorderTest {

    private static final Instant WINDOW_START = Instant.parse("2026-09-30T12:00:00Z");

    private final MutableClock clock = new MutableClock(WINDOW_START.plusMillis(3_000));
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    /** Stores what it is given, by window hash and field; or fails every write while {@code failing}. */
    private static final class MemoryStore implements UsageStore {
        final Map<String, Map<String, Long>> windows = new ConcurrentHashMap<>();
        final AtomicInteger writes = new AtomicInteger();
        final Map<String, Duration> ttls = new ConcurrentHashMap<>();
        volatile boolean failing;
        volatile boolean throwing;

        @Override
        public CompletableFuture<Void> add(String window, Map<String, Long> counts, Duration ttl) {
            if (throwing) {
                throw new IllegalStateException("boom");
            }
            writes.incrementAndGet();
            if (failing) {
                return CompletableFuture.failedFuture(new IllegalStateException("store down"));
            }
            ttls.put(window, ttl);
            counts.forEach((field, cost) -> windows.computeIfAbsent(window, w -> new ConcurrentHashMap<>()).merge(field, cost, Long::sum));
            return CompletableFuture.completedFuture(null);
        }

        Map<String, Long> fieldsOf(long windowStart) {
            Map<String, Long> all = new HashMap<>();
            windows.forEach((window, fields) -> {
                if (window.endsWith(":" + windowStart)) {
                    all.putAll(fields);
                }
            });
            return all;
        }
    }

    private final MemoryStore store = new MemoryStore();

    private UsageRecorder recorder(UsageSettings settings) {
        return new UsageRecorder(store, settings, registry, clock);
    }

    private double counter(String name, String tag, String value) {
        return registry.find(name).tag(tag, value).counter() == null ? 0 : registry.find(name).tag(tag, value).counter().count();
    }

    @Test
    void sumsShadowDeniesPerRuleIntoTheWindowsOwnHashApartFromTheKeysUsage() {
        UsageRecorder recorder = recorder(UsageSettings.DEFAULTS);
        recorder.shadowDenied("labels-route", 1);
        recorder.shadowDenied("labels-route", 2);
        recorder.shadowDenied("export-route", 1);
        recorder.admitted("growth-global", "acct_7Q2", 1);
        clock.advance(Duration.ofSeconds(1));

        recorder.flush();

        long window = WINDOW_START.getEpochSecond();
        assertThat(store.windows.get(UsageKeys.shadowDenies(window)))
                .containsOnly(Map.entry("labels-route", 3L), Map.entry("export-route", 1L));
        assertThat(store.windows.get(UsageKeys.windowOf("growth-global", "acct_7Q2", window)))
                .as("the rebalancer's shard hashes hold only keys' admitted usage").containsOnly(Map.entry("growth-global:acct_7Q2", 1L));
    }

    @Test
    void sumsDeniesPerRuleVersionAndModeIntoTheWindowsOwnHash() {
        UsageRecorder recorder = recorder(UsageSettings.DEFAULTS);
        recorder.denied("growth-global", 4, false, 1);
        recorder.denied("growth-global", 4, false, 2);
        recorder.denied("growth-global", 5, true, 1);
        recorder.denied("bad:id", 1, false, 1);
        clock.advance(Duration.ofSeconds(1));

        recorder.flush();

        assertThat(store.windows.get(UsageKeys.versionDenies(WINDOW_START.getEpochSecond())))
                .containsOnly(Map.entry("growth-global:4:deny", 3L), Map.entry("growth-global:5:shadow_deny", 1L));
    }

    @Test
    void flushesShadowDeniesEvenInAnIntervalWithoutAdmittedUsage() {
        UsageRecorder recorder = recorder(UsageSettings.DEFAULTS);
        recorder.shadowDenied("labels-route", 5);
        clock.advance(Duration.ofSeconds(1));

        recorder.flush();

        assertThat(store.windows.get(UsageKeys.shadowDenies(WINDOW_START.getEpochSecond()))).containsOnly(Map.entry("labels-route", 5L));
    }

    @Test
    void sumsCheckedAndDeniedCostPerRuleAndKeyIntoTheRulesChecksHashKeptForAnHour() {
        UsageRecorder recorder = recorder(UsageSettings.DEFAULTS);
        recorder.checked("login-ip", "203.0.113.7", 1, false);
        recorder.checked("login-ip", "203.0.113.7", 1, true);
        recorder.checked("login-ip", "203.0.113.7", 2, true);
        recorder.checked("login-ip", "198.51.100.2", 1, false);
        clock.advance(Duration.ofSeconds(1));

        recorder.flush();

        String hash = UsageKeys.checks("login-ip", WINDOW_START.getEpochSecond());
        assertThat(store.windows.get(hash)).containsOnly(
                Map.entry("c:203.0.113.7", 4L), Map.entry("d:203.0.113.7", 3L),
                Map.entry("c:198.51.100.2", 1L), Map.entry("l:0", 1L));
        assertThat(store.ttls.get(hash)).isEqualTo(UsageKeys.CHECKS_RETENTION);
        assertThat(store.ttls.get(hash)).isGreaterThanOrEqualTo(Duration.ofHours(1));
    }

    @Test
    void halvesARulesSampleWhenItHasMoreKeysThanTheBoundAndWritesTheLevelWithIt() {
        UsageRecorder recorder = recorder(UsageSettings.DEFAULTS);
        int keys = 3 * UsageRecorder.SAMPLED_KEYS_PER_RULE;
        for (int i = 0; i < keys; i++) {
            recorder.checked("flood-ip", "ip-" + i, 1, false);
        }
        clock.advance(Duration.ofSeconds(1));
        recorder.flush();

        Map<String, Long> first = store.windows.get(UsageKeys.checks("flood-ip", WINDOW_START.getEpochSecond()));
        assertThat(first).containsEntry("l:1", 1L).doesNotContainKey("l:0");
        assertThat(first.keySet()).filteredOn(field -> field.startsWith("c:"))
                .hasSizeLessThanOrEqualTo(UsageRecorder.SAMPLED_KEYS_PER_RULE)
                .allMatch(field -> UsageKeys.sampled(field.substring(2), 1));

        // the next interval starts at level 1: a key outside the sample is not counted, one inside is
        String outside = java.util.stream.IntStream.range(0, keys).mapToObj(i -> "ip-" + i)
                .filter(key -> !UsageKeys.sampled(key, 1)).findFirst().orElseThrow();
        String inside = java.util.stream.IntStream.range(0, keys).mapToObj(i -> "ip-" + i)
                .filter(key -> UsageKeys.sampled(key, 1)).findFirst().orElseThrow();
        recorder.checked("flood-ip", outside, 1, true);
        recorder.checked("flood-ip", inside, 1, true);
        clock.advance(Duration.ofSeconds(1));
        recorder.flush();
        Map<String, Long> second = store.windows.get(UsageKeys.checks("flood-ip", WINDOW_START.getEpochSecond()));
        assertThat(second).containsEntry("l:1", 2L).containsEntry("d:" + inside, 1L).doesNotContainKey("d:" + outside);

        // a quiet interval brings the rule back to every key
        clock.advance(Duration.ofSeconds(1));
        recorder.flush();
        recorder.checked("flood-ip", outside, 1, false);
        clock.advance(Duration.ofSeconds(1));
        recorder.flush();
        assertThat(second).containsEntry("l:0", 1L).containsKey("c:" + outside);
    }

    @Test
    void samplesTheSameKeysAtEveryLevelBelow() {
        for (int i = 0; i < 10_000; i++) {
            String key = "acct_" + i;
            for (int level = 1; level < 8; level++) {
                if (UsageKeys.sampled(key, level + 1)) {
                    assertThat(UsageKeys.sampled(key, level)).as(key).isTrue();
                }
            }
        }
        long atThree = java.util.stream.IntStream.range(0, 10_000).filter(i -> UsageKeys.sampled("acct_" + i, 3)).count();
        assertThat(atThree).as("about 1 in 8").isBetween(1_000L, 1_500L);
    }

    @Test
    void sumsAdmittedCostPerRuleAndKeyIntoTheWindowOfTheInterval() {
        UsageRecorder recorder = recorder(UsageSettings.DEFAULTS);
        recorder.admitted("growth-global", "acct_7Q2", 1);
        recorder.admitted("growth-global", "acct_7Q2", 3);
        recorder.admitted("labels-route", "acct_7Q2", 1);
        recorder.admitted("growth-global", "acct_9", 2);
        clock.advance(Duration.ofSeconds(1));

        recorder.flush();

        long window = WINDOW_START.getEpochSecond();
        assertThat(store.fieldsOf(window)).containsOnly(
                Map.entry("growth-global:acct_7Q2", 4L),
                Map.entry("labels-route:acct_7Q2", 1L),
                Map.entry("growth-global:acct_9", 2L));
        // each field sits in the shard hash a reader will look in
        assertThat(store.windows.get(UsageKeys.windowOf("growth-global", "acct_9", window))).containsKey("growth-global:acct_9");
        assertThat(counter(UsageMetrics.FLUSHES, "outcome", "ok")).isEqualTo(1);
    }

    @Test
    void startsAFreshIntervalAfterEveryFlushAndWritesNothingForSilence() {
        UsageRecorder recorder = recorder(UsageSettings.DEFAULTS);
        recorder.admitted("growth-global", "acct_7Q2", 5);
        clock.advance(Duration.ofSeconds(1));
        recorder.flush();
        int writes = store.writes.get();

        clock.advance(Duration.ofSeconds(1));
        recorder.flush();

        assertThat(store.writes.get()).as("no traffic, no write").isEqualTo(writes);
        assertThat(store.fieldsOf(WINDOW_START.getEpochSecond())).containsEntry("growth-global:acct_7Q2", 5L);
    }

    @Test
    void putsAnIntervalThatStraddlesAWindowEdgeInTheWindowOfItsMidpoint() {
        clock.advance(Duration.ofMillis(6_200));
        UsageRecorder recorder = recorder(UsageSettings.DEFAULTS);
        recorder.admitted("growth-global", "acct_7Q2", 1);
        clock.advance(Duration.ofMillis(1_000));

        recorder.flush();

        // the interval ran from 9.2 s to 10.2 s: mostly in the first window
        assertThat(store.fieldsOf(WINDOW_START.getEpochSecond())).containsEntry("growth-global:acct_7Q2", 1L);
    }

    @Test
    void dropsAndCountsKeysBeyondTheCapOfAnInterval() {
        UsageRecorder recorder = recorder(UsageSettings.DEFAULTS.withMaxKeysPerInterval(2));
        recorder.admitted("growth-global", "a", 1);
        recorder.admitted("growth-global", "b", 1);
        recorder.admitted("growth-global", "c", 1);
        recorder.admitted("growth-global", "a", 1);
        clock.advance(Duration.ofSeconds(1));
        recorder.flush();

        assertThat(store.fieldsOf(WINDOW_START.getEpochSecond())).containsOnly(
                Map.entry("growth-global:a", 2L), Map.entry("growth-global:b", 1L));
        assertThat(counter(UsageMetrics.KEYS_DROPPED, "reason", "cap")).isEqualTo(1);

        // the cap is per interval: the next one counts c again
        recorder.admitted("growth-global", "c", 1);
        clock.advance(Duration.ofSeconds(1));
        recorder.flush();
        assertThat(store.fieldsOf(WINDOW_START.getEpochSecond())).containsEntry("growth-global:c", 1L);
    }

    @Test
    void countsAndDropsAFailedFlushThenCarriesOn() {
        UsageRecorder recorder = recorder(UsageSettings.DEFAULTS);
        store.failing = true;
        recorder.admitted("growth-global", "acct_7Q2", 7);
        clock.advance(Duration.ofSeconds(1));
        recorder.flush();

        assertThat(counter(UsageMetrics.FLUSHES, "outcome", "failed")).isEqualTo(1);
        assertThat(counter(UsageMetrics.KEYS_DROPPED, "reason", "flush_failed")).isEqualTo(1);

        store.failing = false;
        recorder.admitted("growth-global", "acct_7Q2", 1);
        clock.advance(Duration.ofSeconds(1));
        recorder.flush();
        assertThat(store.fieldsOf(WINDOW_START.getEpochSecond()))
                .as("the failed interval's 7 are gone, not retried").containsEntry("growth-global:acct_7Q2", 1L);
    }

    @Test
    void aStoreThatThrowsIsAFailedFlushToo() {
        UsageRecorder recorder = recorder(UsageSettings.DEFAULTS);
        store.throwing = true;
        recorder.admitted("growth-global", "acct_7Q2", 1);
        clock.advance(Duration.ofSeconds(1));

        assertThatCode(recorder::flush).doesNotThrowAnyException();
        assertThat(counter(UsageMetrics.FLUSHES, "outcome", "failed")).isEqualTo(1);
    }

    @Test
    void skipsARuleIdThatCannotBeNamedInAField() {
        UsageRecorder recorder = recorder(UsageSettings.DEFAULTS);
        recorder.admitted("bad:rule", "acct_7Q2", 1);
        recorder.admitted("growth-global", "acct_7Q2", 1);
        clock.advance(Duration.ofSeconds(1));
        recorder.flush();

        assertThat(store.fieldsOf(WINDOW_START.getEpochSecond())).containsOnlyKeys("growth-global:acct_7Q2");
        assertThat(counter(UsageMetrics.KEYS_DROPPED, "reason", "invalid_rule")).isEqualTo(1);
    }

    @Test
    void closingWritesWhatWasCountedSinceTheLastFlush() {
        UsageRecorder recorder = UsageRecorder.start(store, UsageSettings.DEFAULTS, registry, clock);
        recorder.admitted("growth-global", "acct_7Q2", 2);

        recorder.close();

        assertThat(store.fieldsOf(WINDOW_START.getEpochSecond())).containsEntry("growth-global:acct_7Q2", 2L);
    }

    @Test
    void refusesAFlushIntervalAboveOneSecond() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> UsageSettings.DEFAULTS.withFlushInterval(Duration.ofSeconds(2)))
                .hasMessageContaining("UsageSettings.flushInterval");
    }
}
