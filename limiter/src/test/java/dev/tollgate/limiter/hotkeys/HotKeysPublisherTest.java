package dev.tollgate.limiter.hotkeys;

import dev.tollgate.store.CounterStore;
import dev.tollgate.store.InMemoryCounterStore;
import dev.tollgate.store.LuaScript;
import dev.tollgate.store.StoreException;
import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.store.read.PodHotKeys;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HotKeysPublisherTest {

    private final AtomicLong nanos = new AtomicLong();
    private final HotKeys hot = new HotKeys(nanos::get);

    @Test
    void publishesThePodsReportUnderItsNameWithTheTtlOfThreeWindows() {
        List<List<String>> calls = new CopyOnWriteArrayList<>();
        CounterStore store = recording(calls, null);
        hot.record("acct_hot");
        hot.record("acct_hot");
        try (HotKeysPublisher publisher = new HotKeysPublisher(store, hot, "eu-west", "pod-7", Duration.ofSeconds(25))) {
            publisher.publishNow();
        }

        assertThat(calls).hasSize(1);
        List<String> call = calls.get(0);
        assertThat(call.get(0)).isEqualTo(RedisKeys.podHotKeys("eu-west", "pod-7"));
        assertThat(PodHotKeys.decode("pod-7", call.get(1))).contains(hot.report("pod-7", PodHotKeys.MAX_ENTRIES));
        assertThat(call.get(2)).isEqualTo("30000");
    }

    @Test
    void aStoreThatFailsIsTriedAgainNextTimeAndNothingThrows() {
        List<List<String>> calls = new CopyOnWriteArrayList<>();
        CounterStore store = recording(calls, new StoreException(StoreException.Kind.UNAVAILABLE, "not_connected", "down", null));
        try (HotKeysPublisher publisher = new HotKeysPublisher(store, hot, "eu-west", "pod-7", Duration.ofSeconds(25))) {
            publisher.publishNow();
            publisher.publishNow();
        }

        assertThat(calls).hasSize(2);
    }

    @Test
    void theInMemoryStoreRunsThePublishScript() {
        InMemoryCounterStore store = new InMemoryCounterStore(() -> 1_000_000L);

        assertThat(store.run(HotKeysPublisher.PUBLISH, List.of(RedisKeys.podHotKeys("local", "pod-1")),
                List.of(hot.report("pod-1", 4).encode(), "30000")).join()).containsExactly(1L);
    }

    @Test
    void refusesAnIntervalThatWouldLetTheReportAgeOutBetweenPublishes() {
        CounterStore store = recording(new CopyOnWriteArrayList<>(), null);

        assertThatThrownBy(() -> new HotKeysPublisher(store, hot, "r", "p", Duration.ofSeconds(30)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("below their ttl");
        assertThatThrownBy(() -> new HotKeysPublisher(store, hot, "r", "p", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static CounterStore recording(List<List<String>> calls, StoreException failure) {
        return (LuaScript script, List<String> keys, List<String> args) -> {
            assertThat(script).isEqualTo(HotKeysPublisher.PUBLISH);
            calls.add(List.of(keys.get(0), args.get(0), args.get(1)));
            return failure == null ? CompletableFuture.completedFuture(List.of(1L)) : CompletableFuture.failedFuture(failure);
        };
    }
}
