package dev.tollgate.limiter.hotkeys;

import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.store.read.PodHotKeys;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class HotKeysTest {

    private final AtomicLong nanos = new AtomicLong();
    private final HotKeys hot = new HotKeys(nanos::get);

    /**
     * Space-saving's bounds hold for every key it counts, which they do only if each new key replaces a coldest counter:
     * a key's count over-counts its calls by at most its error and never under-counts them, the counts add up to the
     * calls, and no error is above the coldest count. Skewed keys (a few hot, many cold) so that counters are evicted
     * and come back.
     */
    @Test
    void everyCountedKeyIsWithinItsErrorOfItsCalls() {
        for (int seed = 0; seed < 50; seed++) {
            HotKeys sketch = new HotKeys(nanos::get);
            Random random = new Random(seed);
            Map<String, Long> calls = new HashMap<>();
            for (int i = 1; i <= 2_000; i++) {
                String key = "k" + (int) Math.floor(Math.pow(random.nextDouble(), 3) * 150);
                sketch.record(key);
                calls.merge(key, 1L, Long::sum);
                List<HotKeys.HotKey> top = sketch.top(HotKeys.CAPACITY);
                assertThat(top.stream().mapToLong(HotKeys.HotKey::calls).sum()).isEqualTo(i);
                assertThat(top).allSatisfy(counted -> assertThat(calls.get(counted.key())).as(counted.key())
                        .isBetween(counted.calls() - counted.error(), counted.calls()));
                // a key's error is the coldest count when it came in, and the coldest count never falls
                long coldest = top.stream().mapToLong(HotKeys.HotKey::calls).min().orElseThrow();
                assertThat(top).allSatisfy(counted -> assertThat(counted.error()).as(counted.key()).isLessThanOrEqualTo(coldest));
            }
        }
    }

    /** A key with a fifth of the calls among 100,000 keys called once each: first, counted within the sketch's bound. */
    @Test
    void findsAHeavyKeyInAFloodOfDistinctOnesWithinTheSketchsBound() {
        int flood = 100_000;
        for (int i = 0; i < flood; i++) {
            hot.record("ip-" + i);
            if (i % 4 == 0) {
                hot.record("acct_hot");
            }
        }

        List<HotKeys.HotKey> top = hot.top(3);

        assertThat(top.get(0).key()).isEqualTo("acct_hot");
        long total = flood + flood / 4;
        assertThat(top.get(0).calls()).isBetween(flood / 4L, flood / 4L + total / HotKeys.CAPACITY);
        assertThat(top.get(0).calls() - top.get(0).error()).as("its guaranteed count").isLessThanOrEqualTo(flood / 4L);
        assertThat(top.get(0).slot()).isEqualTo(RedisKeys.slot("acct_hot"));
    }

    @Test
    void countsEveryKeyExactlyWhileThereAreFewerThanItsCapacity() {
        for (int i = 0; i < 10; i++) {
            for (int j = 0; j <= i; j++) {
                hot.record("k" + i);
            }
        }

        assertThat(hot.top(3)).extracting(HotKeys.HotKey::key, HotKeys.HotKey::calls, HotKeys.HotKey::error)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("k9", 10L, 0L), org.assertj.core.groups.Tuple.tuple("k8", 9L, 0L),
                        org.assertj.core.groups.Tuple.tuple("k7", 8L, 0L));
    }

    @Test
    void aSlotsShareIsOfThePodsStoreCalls() {
        for (int i = 0; i < 30; i++) {
            hot.record("acct_a");
        }
        for (int i = 0; i < 10; i++) {
            hot.record("acct_b");
        }

        HotKeys.HotSlot hottest = hot.topSlots(1).get(0);

        assertThat(hottest.slot()).isEqualTo(RedisKeys.slot("acct_a"));
        assertThat(hottest.calls()).isEqualTo(30);
        assertThat(hottest.share()).isEqualTo(0.75);
    }

    @Test
    void showsTheLastTwoWindowsAndForgetsOlderOnes() {
        hot.record("old");
        nanos.addAndGet(HotKeys.WINDOW_NANOS);
        hot.record("new");
        assertThat(hot.top(5)).extracting(HotKeys.HotKey::key).containsExactlyInAnyOrder("old", "new");

        nanos.addAndGet(HotKeys.WINDOW_NANOS);
        assertThat(hot.top(5)).extracting(HotKeys.HotKey::key).containsExactly("new");

        nanos.addAndGet(3 * HotKeys.WINDOW_NANOS);
        assertThat(hot.top(5)).as("quiet for two windows: nothing is hot").isEmpty();
        assertThat(hot.topSlots(5)).isEmpty();
    }

    @Test
    void reportsItsTopBoundedWithEveryCallOfTheSpan() {
        // the hot key first, while the sketch has room: counted exactly, whatever evictions follow among the rest
        for (int i = 0; i < 50; i++) {
            hot.record("acct_hot");
        }
        for (int i = 0; i < 100; i++) {
            hot.record("k" + i);
        }

        PodHotKeys report = hot.report("pod-1", PodHotKeys.MAX_ENTRIES);

        assertThat(report.pod()).isEqualTo("pod-1");
        assertThat(report.calls()).isEqualTo(150);
        assertThat(report.keys()).hasSize(PodHotKeys.MAX_ENTRIES);
        assertThat(report.keys().get(0)).isEqualTo(new PodHotKeys.Key("acct_hot", RedisKeys.slot("acct_hot"), 50, 0));
        assertThat(report.slots()).hasSize(PodHotKeys.MAX_ENTRIES);
        assertThat(report.slots().get(0).slot()).isEqualTo(RedisKeys.slot("acct_hot"));
    }
}
