package dev.tollgate.rebalancer.budget;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class BudgetSplitTest {

    private static final double NAN = Double.NaN;
    private static final List<String> REGIONS = List.of("us-east", "eu-west", "ap-south");
    private static final BudgetSplit DESIGN = new BudgetSplit(REGIONS, new double[] {0.60, 0.25, 0.15}, 0.10);

    private static double sumInOrder(double[] shares) {
        double sum = 0;
        for (double share : shares) {
            sum += share;
        }
        return sum;
    }

    private static void assertShares(double[] shares, double... expected) {
        assertThat(shares).hasSize(expected.length);
        for (int i = 0; i < expected.length; i++) {
            assertThat(shares[i]).as("share %d of %s", i, Arrays.toString(shares)).isCloseTo(expected[i], within(1e-9));
        }
        assertThat(sumInOrder(shares)).as("sum of %s", Arrays.toString(shares)).isEqualTo(1.0);
    }

    @Test
    void reproducesTheDesignsWorkedExample() {
        double[] shares = DESIGN.split(new long[] {700, 300, 0});

        assertShares(shares, 0.63, 0.27, 0.10);
        // budgets for a 1,000/s key, as a pod scales its rate
        assertThat(Arrays.stream(shares).mapToLong(share -> Math.round(1_000 * share)).toArray()).containsExactly(630, 270, 100);
    }

    @Test
    void givesARegionWithAllTheTrafficAllButTheOthersFloors() {
        assertShares(DESIGN.split(new long[] {0, 5_000, 0}), 0.10, 0.80, 0.10);
    }

    @Test
    void splitsInProportionWhenEveryRegionIsAboveTheFloor() {
        assertShares(DESIGN.split(new long[] {40, 30, 30}), 0.40, 0.30, 0.30);
    }

    @Test
    void fallsBackToTheDefaultSplitWithoutTraffic() {
        assertShares(DESIGN.split(new long[] {0, 0, 0}), 0.60, 0.25, 0.15);
        assertShares(DESIGN.defaultShares(), 0.60, 0.25, 0.15);
    }

    @Test
    void raisesAgainWhenRaisingOneRegionPushesAnotherBelowTheFloor() {
        BudgetSplit five = new BudgetSplit(List.of("a", "b", "c", "d", "e"), new double[] {0.40, 0.15, 0.15, 0.15, 0.15}, 0.10);

        // c, d, e are raised first; 70% split 80:12 would leave b at 9.1%, so b is raised too
        assertShares(five.split(new long[] {80, 12, 8, 0, 0}), 0.60, 0.10, 0.10, 0.10, 0.10);
    }

    @Test
    void refusesAFloorThatCannotHoldForEveryRegion() {
        List<String> eleven = List.of("r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11");
        double[] defaults = new double[11];
        Arrays.fill(defaults, 1.0 / 11);

        assertThatThrownBy(() -> new BudgetSplit(eleven, defaults, 0.10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tollgate.rebalancer.floor");
    }

    @Test
    void givesEveryRegionTheFloorWhenTheFloorsFillTheWholeLimit() {
        List<String> ten = List.of("r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10");
        double[] defaults = new double[10];
        Arrays.fill(defaults, 0.1);
        BudgetSplit split = new BudgetSplit(ten, defaults, 0.10);

        double[] shares = split.split(new long[] {1_000, 0, 0, 0, 0, 0, 0, 0, 0, 0});

        double[] expected = new double[10];
        Arrays.fill(expected, 0.1);
        assertShares(shares, expected);
    }

    @Test
    void refusesDefaultSharesThatDoNotSumToOneOrFallBelowTheFloor() {
        assertThatThrownBy(() -> new BudgetSplit(REGIONS, new double[] {0.6, 0.25, 0.25}, 0.10))
                .hasMessageContaining("sum to 1");
        assertThatThrownBy(() -> new BudgetSplit(REGIONS, new double[] {0.6, 0.35, 0.05}, 0.10))
                .hasMessageContaining("tollgate.regions.ap-south.default-share");
    }

    @Test
    void anUnreachableRegionKeepsItsShareAndTheOthersSplitTheRest() {
        // ap-south's usage could not be read: it keeps 30%, the other 70% follows us-east 30 : eu-west 40
        double[] shares = DESIGN.split(new long[] {30, 40, 0}, new double[] {NAN, NAN, 0.30});

        assertShares(shares, 0.30, 0.40, 0.30);
    }

    @Test
    void appliesTheFloorWithinWhatAKeptShareLeaves() {
        double[] shares = DESIGN.split(new long[] {0, 1_000, 0}, new double[] {NAN, NAN, 0.30});

        assertShares(shares, 0.10, 0.60, 0.30);
    }

    @Test
    void lowersTheFloorWhenAKeptShareLeavesLessThanAFloorEach() {
        // a share kept from an older, lower floor leaves 10% for two regions
        assertShares(DESIGN.split(new long[] {1_000, 0, 0}, new double[] {NAN, NAN, 0.90}), 0.05, 0.05, 0.90);
    }

    @Test
    void answersNullWhenKeptSharesLeaveNoRoom() {
        assertThat(DESIGN.split(new long[] {1, 1, 0}, new double[] {NAN, NAN, 1.0})).isNull();
    }

    @Test
    void givesOddMillionthsToTheLargestRemainders() {
        BudgetSplit even = new BudgetSplit(REGIONS, new double[] {0.4, 0.3, 0.3}, 0.10);

        double[] shares = even.split(new long[] {1, 1, 1});

        assertThat(Arrays.stream(shares).mapToLong(BudgetSplit::micros).toArray()).containsExactly(333_334, 333_333, 333_333);
        assertThat(sumInOrder(shares)).isEqualTo(1.0);
    }

    @Test
    void handlesCountsThatWouldOverflowAProduct() {
        assertShares(DESIGN.split(new long[] {Long.MAX_VALUE / 2, Long.MAX_VALUE / 2, 0}), 0.45, 0.45, 0.10);
    }

    @Test
    void sharesAlwaysSumToExactlyOneAndHoldTheFloor() {
        Random random = new Random(42);
        BudgetSplit four = new BudgetSplit(List.of("a", "b", "c", "d"), new double[] {0.4, 0.3, 0.2, 0.1}, 0.07);
        for (int run = 0; run < 20_000; run++) {
            long[] observed = new long[4];
            for (int i = 0; i < 4; i++) {
                observed[i] = random.nextInt(4) == 0 ? 0 : random.nextInt(1_000_000);
            }
            double[] kept = null;
            if (random.nextBoolean()) {
                kept = new double[] {NAN, NAN, NAN, NAN};
                kept[random.nextInt(4)] = 0.07 + random.nextInt(300_000) / 1e6;
            }
            double[] shares = four.split(observed, kept);
            String context = Arrays.toString(observed) + " kept " + Arrays.toString(kept) + " -> " + Arrays.toString(shares);
            assertThat(sumInOrder(shares)).as(context).isEqualTo(1.0);
            assertThat(Arrays.stream(shares).min().orElseThrow()).as(context).isGreaterThanOrEqualTo(0.07 - 1e-12);
            if (kept != null) {
                for (int i = 0; i < 4; i++) {
                    if (!Double.isNaN(kept[i])) {
                        assertThat(shares[i]).as(context).isCloseTo(kept[i], within(1e-6));
                    }
                }
            }
        }
    }
}
