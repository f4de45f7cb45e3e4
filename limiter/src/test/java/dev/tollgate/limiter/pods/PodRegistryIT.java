package dev.tollgate.limiter.pods;

import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The live pod count follows the fleet: pods that start are counted at their first beat, pods that stop drop out. */
class PodRegistryIT {

    @Test
    void countsLivePodsAndForgetsSilentOnes() {
        String region = "it-" + UUID.randomUUID();
        try (RedisCounterStore store = RedisCounterStore.connect(
                RedisStoreSettings.of(RedisCluster.shared().seedUris()).withCommandTimeout(Duration.ofSeconds(2)))) {
            List<PodRegistry> fleet = new ArrayList<>();
            try {
                for (int i = 0; i < 4; i++) {
                    fleet.add(new PodRegistry(store, region, "pod-" + i, Duration.ofMillis(200), Duration.ofMillis(800), 1));
                }
                await().atMost(Duration.ofSeconds(15)).until(() -> fleet.get(0).getAsInt() == 4);

                // scale out: two more pods are counted within a beat or two
                for (int i = 4; i < 6; i++) {
                    fleet.add(new PodRegistry(store, region, "pod-" + i, Duration.ofMillis(200), Duration.ofMillis(800), 1));
                }
                await().atMost(Duration.ofSeconds(15)).until(() -> fleet.get(0).getAsInt() == 6);

                // a pod that dies stops beating and drops out after the ttl
                fleet.remove(5).close();
                fleet.remove(4).close();
                await().atMost(Duration.ofSeconds(15)).until(() -> fleet.get(0).getAsInt() == 4);
            } finally {
                fleet.forEach(PodRegistry::close);
            }
        }
    }

    @Test
    void keepsTheLastKnownCountWhenTheStoreIsGone() {
        String region = "it-" + UUID.randomUUID();
        RedisCounterStore store = RedisCounterStore.connect(
                RedisStoreSettings.of(RedisCluster.shared().seedUris()).withCommandTimeout(Duration.ofSeconds(2)));
        try (PodRegistry a = new PodRegistry(store, region, "a", Duration.ofHours(1), Duration.ofHours(2), 1);
             PodRegistry b = new PodRegistry(store, region, "b", Duration.ofHours(1), Duration.ofHours(2), 1)) {
            b.beatNow();
            assertThat(a.beatNow()).isEqualTo(2);
            store.close();
            assertThat(a.beatNow()).isEqualTo(2);
        }
    }

    @Test
    void startsAtTheFloorAndNeverCountsBelowIt() {
        String region = "it-" + UUID.randomUUID();
        try (RedisCounterStore store = RedisCounterStore.connect(
                RedisStoreSettings.of(RedisCluster.shared().seedUris()).withCommandTimeout(Duration.ofSeconds(2)));
             PodRegistry pod = new PodRegistry(store, region, "only", Duration.ofHours(1), Duration.ofHours(2), 5)) {
            // the timer's first beat may or may not have landed: either way the count is the floor
            assertThat(pod.getAsInt()).isEqualTo(5);
            // one pod beats, the registry holds one: still the floor
            assertThat(pod.beatNow()).isEqualTo(5);
            List<PodRegistry> others = new ArrayList<>();
            try {
                for (int i = 0; i < 6; i++) {
                    others.add(new PodRegistry(store, region, "more-" + i, Duration.ofHours(1), Duration.ofHours(2), 1));
                }
                // the six others' first beats land on their timers; the count rises above the floor once they do
                await().atMost(Duration.ofSeconds(15)).until(() -> pod.beatNow() == 7);
            } finally {
                others.forEach(PodRegistry::close);
            }
        }
    }

    @Test
    void refusesAFloorBelowOne() {
        try (RedisCounterStore store = RedisCounterStore.start(RedisStoreSettings.of(List.of("redis://127.0.0.1:1")))) {
            assertThatThrownBy(() -> new PodRegistry(store, "r", "p", Duration.ofSeconds(1), Duration.ofSeconds(3), 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("floor of the pod count must be at least 1");
        }
    }
}
