package dev.tollgate.client.affinity;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RendezvousTest {

    private static final List<String> PODS = List.of("10.0.0.1:8080", "10.0.0.2:8080", "10.0.0.3:8080", "10.0.0.4:8080", "10.0.0.5:8080");

    @Test
    void everyClientSendsAKeyToTheSamePodWhateverOrderItLearntThePodsIn() {
        List<String> shuffled = new ArrayList<>(PODS);
        Collections.reverse(shuffled);
        Rendezvous one = Rendezvous.of(PODS);
        Rendezvous other = Rendezvous.of(shuffled);
        for (int i = 0; i < 1_000; i++) {
            String key = "acct_" + i;
            assertThat(other.names().get(other.first(key))).isEqualTo(one.names().get(one.first(key)));
        }
    }

    @Test
    void spreadsKeysEvenlyOverThePods() {
        Rendezvous ring = Rendezvous.of(PODS);
        int[] counts = new int[PODS.size()];
        int keys = 50_000;
        for (int i = 0; i < keys; i++) {
            counts[ring.first("acct_" + i)]++;
        }
        for (int count : counts) {
            assertThat(count).isBetween((int) (keys / 5 * 0.95), (int) (keys / 5 * 1.05));
        }
    }

    @Test
    void aRemovedPodsKeysMoveToTheirSecondPodAndNoOtherKeyMoves() {
        Rendezvous all = Rendezvous.of(PODS);
        List<String> fewer = new ArrayList<>(PODS);
        String removed = fewer.remove(2);
        Rendezvous without = Rendezvous.of(fewer);
        for (int i = 0; i < 10_000; i++) {
            String key = "acct_" + i;
            int[] order = all.order(key);
            String before = PODS.get(order[0]);
            String after = fewer.get(without.first(key));
            if (before.equals(removed)) {
                assertThat(after).isEqualTo(PODS.get(order[1]));
            } else {
                assertThat(after).isEqualTo(before);
            }
        }
    }

    @Test
    void theOrderStartsWithTheFirstPodAndNamesEveryPodOnce() {
        Rendezvous ring = Rendezvous.of(PODS);
        for (int i = 0; i < 1_000; i++) {
            int[] order = ring.order("k" + i);
            assertThat(order[0]).isEqualTo(ring.first("k" + i));
            assertThat(order).containsExactlyInAnyOrder(0, 1, 2, 3, 4);
        }
    }

    @Test
    void noPodsNoFirst() {
        assertThat(Rendezvous.of(List.of()).first("k")).isEqualTo(-1);
        assertThat(Rendezvous.of(List.of()).order("k")).isEmpty();
    }
}
