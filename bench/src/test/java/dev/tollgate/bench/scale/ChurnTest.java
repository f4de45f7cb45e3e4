package dev.tollgate.bench.scale;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ChurnTest {

    private static final int KEYS = 10_000;

    @Test
    void oneKeyInTwentyMovesEachCycleAndOnlyThoseChangeTheirSplit() {
        for (int cycle = 0; cycle < 45; cycle++) {
            int moved = 0;
            for (int key = 0; key < KEYS; key++) {
                boolean changed = Churn.swapped(key, cycle) != (cycle == 0 ? false : Churn.swapped(key, cycle - 1));
                assertThat(changed).as("key %d in cycle %d", key, cycle).isEqualTo(Churn.moves(key, cycle));
                if (changed) {
                    moved++;
                }
            }
            assertThat(moved).as("cycle %d", cycle).isEqualTo(KEYS / Churn.GROUPS);
        }
    }

    @Test
    void aKeySwapsBackTheNextTimeItsGroupMoves() {
        int key = 7;
        assertThat(Churn.swapped(key, 6)).isFalse();
        assertThat(Churn.swapped(key, 7)).isTrue();
        assertThat(Churn.swapped(key, 26)).isTrue();
        assertThat(Churn.swapped(key, 27)).isFalse();
    }

    @Test
    void usageIsInTheSeededProportionsUntilTheKeyMovesAndEveryRegionStaysAboveTheFloor() {
        double[] seeded = Churn.seededShares();
        long[] steady = Churn.usage(3, 0);
        long total = steady[0] + steady[1] + steady[2];
        for (int region = 0; region < 3; region++) {
            assertThat(steady[region] / (double) total).isEqualTo(seeded[region]);
        }
        long[] swapped = Churn.usage(3, 3);
        assertThat(swapped[1]).isEqualTo(steady[2]);
        assertThat(swapped[2]).isEqualTo(steady[1]);
        for (long cost : swapped) {
            assertThat(cost / (double) total).isGreaterThanOrEqualTo(0.10);
        }
    }

    @Test
    void everyKeyIsADistinctRuleAndAccount() {
        Set<String> seen = new HashSet<>();
        for (int key = 0; key < KEYS; key++) {
            assertThat(seen.add(Churn.rule(key) + ":" + Churn.limitKey(key))).isTrue();
        }
    }

    @Test
    void refusesFewerKeysThanRules() {
        assertThatThrownBy(() -> new Churn(3)).isInstanceOf(IllegalArgumentException.class);
    }
}
