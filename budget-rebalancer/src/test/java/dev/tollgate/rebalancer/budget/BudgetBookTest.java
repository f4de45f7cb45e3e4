package dev.tollgate.rebalancer.budget;

import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.FailMode;
import dev.tollgate.common.rule.Identity;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Rule;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class BudgetBookTest {

    private static final double NAN = Double.NaN;
    private static final boolean[] ALL = {true, true, true};
    /** An account's limit: split across regions. */
    private static final Rule GROWTH = Rule.tokenBucket("growth-global", "public-api", 10, 20);
    /** Keys a caller chooses: every region keeps its default share. */
    private static final Rule PER_IP = new Rule("per-ip", "public-api", null, Identity.IP, Limit.TokenBucket.perSecond(10, 20), null, null, 1, 1);
    /** A big merchant's limit: a point of its share is 100 tokens a second. */
    private static final Rule ENTERPRISE = Rule.tokenBucket("enterprise", "public-api", 10_000, 20_000);
    /** A daily quota of 10,000: about 0.12 a second at its steady rate. */
    private static final Rule DAILY = Rule.fixedWindow("daily", "public-api", 10_000, 86_400);
    private static final Rule LOGIN = new Rule("login-user", "auth", null, Identity.USER, new Limit.SlidingLog(20, 60), null, FailMode.CLOSED, 1, 1);
    private static final BudgetKey ACCOUNT = new BudgetKey("growth-global", "acct_7Q2");
    private static final BudgetKey OTHER = new BudgetKey("growth-global", "acct_9");

    private final BudgetSplit split = new BudgetSplit(List.of("us-east", "eu-west", "ap-south"), new double[] {0.60, 0.25, 0.15}, 0.10);
    private final BudgetBook book = new BudgetBook(split, Duration.ofMinutes(5), 0.01, 0.10, 1_000);
    private Instant now = Instant.parse("2026-09-30T12:00:02Z");

    @BeforeEach
    void emptyStore() {
        book.reload(stored(1, Map.of()), now);
    }

    private static StoredBudgets stored(long revision, Map<BudgetKey, double[]> rows) {
        return stored(revision, List.of(), rows);
    }

    private static StoredBudgets stored(long revision, List<AccountOverride> overrides, Map<BudgetKey, double[]> rows) {
        return new StoredBudgets(revision, List.of(GROWTH, ENTERPRISE, DAILY, PER_IP, LOGIN), overrides, rows);
    }

    private static Map<BudgetKey, long[]> usage(Object... keysAndCounts) {
        Map<BudgetKey, long[]> usage = new HashMap<>();
        for (int i = 0; i < keysAndCounts.length; i += 2) {
            usage.put((BudgetKey) keysAndCounts[i], (long[]) keysAndCounts[i + 1]);
        }
        return usage;
    }

    private Plan cycle(Map<BudgetKey, long[]> usage, boolean[] reachable) {
        Plan plan = book.plan(usage, reachable, now);
        book.applied(plan);
        now = now.plusSeconds(10);
        return plan;
    }

    @Test
    void writesEveryRegionsShareOfAKeyWithUsage() {
        Plan plan = cycle(usage(ACCOUNT, new long[] {700, 300, 0}), ALL);

        assertThat(plan.writes()).containsOnlyKeys(ACCOUNT);
        assertThat(plan.writes().get(ACCOUNT)).containsExactly(new double[] {0.63, 0.27, 0.10}, within(1e-9));
        assertThat(plan.rebalanced()).isEqualTo(1);
        assertThat(book.size()).isEqualTo(1);
    }

    @Test
    void writesNothingForAKeyWhoseSplitIsTheDefaultItAlreadyHas() {
        // no row means the default split, and 60/25/15 usage gives the default split
        Plan plan = cycle(usage(ACCOUNT, new long[] {600, 250, 150}), ALL);

        assertThat(plan.writes()).isEmpty();
        assertThat(plan.rebalanced()).isEqualTo(1);
    }

    @Test
    void rewritesSharesOnlyWhenTheyMoveByMoreThanTheMinimumChange() {
        cycle(usage(ACCOUNT, new long[] {700, 300, 0}), ALL);

        assertThat(cycle(usage(ACCOUNT, new long[] {705, 295, 0}), ALL).writes()).as("0.6345 vs 0.63").isEmpty();
        assertThat(cycle(usage(ACCOUNT, new long[] {500, 500, 0}), ALL).writes()).containsOnlyKeys(ACCOUNT);
    }

    @Test
    void writesTheLargestChangesFirstAndLeavesTheRestForTheNextCycles() {
        BudgetBook small = new BudgetBook(split, Duration.ofMinutes(5), 0.01, 0.10, 2);
        small.reload(stored(1, Map.of()), now);
        BudgetKey slight = new BudgetKey("growth-global", "slight");
        // 0.62 / 0.23 / 0.15 against the default 0.60 / 0.25 / 0.15: 2 points, less than the others move
        Map<BudgetKey, long[]> usage = usage(ACCOUNT, new long[] {0, 1_000, 0}, OTHER, new long[] {700, 300, 0},
                slight, new long[] {620, 230, 150});

        Plan first = small.plan(usage, ALL, now);
        small.applied(first);

        assertThat(first.writes()).containsOnlyKeys(ACCOUNT, OTHER);
        assertThat(first.deferred()).isEqualTo(1);
        Plan second = small.plan(usage, ALL, now.plusSeconds(10));
        assertThat(second.writes()).containsOnlyKeys(slight);
        assertThat(second.deferred()).isZero();
    }

    @Test
    void writesTheLargestMovesInTokensASecondFirstSoSmallKeysThatSwingFarCannotCrowdOutAMerchant() {
        // when moves were ranked by share moved, keys of a 10/s limit seen in one region (0.25 to 0.80 of 10/s:
        // 5.5 tokens a second each) went before a merchant's 5 points of 10,000/s (500 tokens a second)
        BudgetBook small = new BudgetBook(split, Duration.ofMinutes(5), 0.01, 0.10, 3);
        BudgetKey merchant = new BudgetKey("enterprise", "acct_big");
        small.reload(stored(1, Map.of(merchant, new double[] {0.63, 0.27, 0.10})), now);
        Map<BudgetKey, long[]> usage = new HashMap<>();
        usage.put(merchant, new long[] {68_000, 22_000, 10_000});
        for (int i = 0; i < 5; i++) {
            usage.put(new BudgetKey("growth-global", "acct_small_" + i), new long[] {0, 100, 0});
        }

        Plan plan = small.plan(usage, ALL, now);

        assertThat(plan.writes()).hasSize(3).containsKey(merchant);
        assertThat(plan.writes().get(merchant)).containsExactly(new double[] {0.68, 0.22, 0.10}, within(1e-9));
        assertThat(plan.deferred()).isEqualTo(3);
    }

    @Test
    void returnsAKeyIdleForTheIdleTimeToTheDefaultSplit() {
        cycle(usage(ACCOUNT, new long[] {700, 300, 0}), ALL);
        now = now.plus(Duration.ofMinutes(4));
        assertThat(cycle(usage(), ALL).resets()).as("idle 4 min").isEmpty();

        now = now.plus(Duration.ofMinutes(1));
        Plan plan = cycle(usage(), ALL);

        assertThat(plan.resets()).containsExactly(ACCOUNT);
        assertThat(book.size()).isZero();
    }

    @Test
    void keepsTheSharesOfAnUnreachableRegionAndSplitsTheRestAmongTheOthers() {
        cycle(usage(ACCOUNT, new long[] {40, 30, 30}), ALL);

        // ap-south cannot be read: it keeps its 30%, the others split 70% as 30 : 40
        Plan plan = cycle(usage(ACCOUNT, new long[] {30, 40, 0}), new boolean[] {true, true, false});

        assertThat(plan.writes().get(ACCOUNT)).containsExactly(new double[] {0.30, 0.40, 0.30}, within(1e-9));
    }

    @Test
    void keepsTheDefaultShareOfAnUnreachableRegionForAKeyWithoutRows() {
        Plan plan = cycle(usage(ACCOUNT, new long[] {0, 1_000, 0}), new boolean[] {true, true, false});

        // ap-south's pods apply their default 15% to this key: it stays 15%
        assertThat(plan.writes().get(ACCOUNT)).containsExactly(new double[] {0.10, 0.75, 0.15}, within(1e-9));
    }

    @Test
    void resetsNothingWhileARegionIsUnreachable() {
        cycle(usage(ACCOUNT, new long[] {700, 300, 0}), ALL);
        now = now.plus(Duration.ofMinutes(10));

        assertThat(cycle(usage(), new boolean[] {true, false, true}).resets()).as("its traffic may be in eu-west").isEmpty();
        assertThat(cycle(usage(), ALL).resets()).containsExactly(ACCOUNT);
    }

    @Test
    void skipsKeysOfRulesTheStoreDoesNotHold() {
        Plan plan = cycle(usage(new BudgetKey("no-such-rule", "acct_7Q2"), new long[] {1, 0, 0}), ALL);

        assertThat(plan.writes()).isEmpty();
        assertThat(plan.skipped()).isEqualTo(new Plan.Skipped(1, 0, 0));
    }

    @Test
    void givesKeysACallerChoosesNoRowsAndReturnsThoseTheyHaveToTheDefaultSplitWhileAMerchantIsRebalanced() {
        // usage of every rule, as an older pod reports it (every admitted entry); rows an IP got then
        BudgetKey oldSpray = new BudgetKey("per-ip", "192.0.2.1");
        book.reload(stored(2, Map.of(oldSpray, new double[] {0.8, 0.1, 0.1})), now);
        Map<BudgetKey, long[]> usage = new HashMap<>();
        usage.put(ACCOUNT, new long[] {700, 300, 0});
        for (int i = 0; i < 1_000; i++) {
            usage.put(new BudgetKey("per-ip", "198.51.100." + i), new long[] {20, 0, 0});
            usage.put(new BudgetKey("login-user", "user-" + i), new long[] {0, 5, 0});
        }

        Plan plan = cycle(usage, ALL);

        assertThat(plan.writes()).containsOnlyKeys(ACCOUNT);
        assertThat(plan.writes().get(ACCOUNT)).containsExactly(new double[] {0.63, 0.27, 0.10}, within(1e-9));
        assertThat(plan.skipped()).isEqualTo(new Plan.Skipped(0, 2_000, 0));
        now = now.plus(Duration.ofMinutes(5));
        assertThat(cycle(usage, ALL).resets()).as("the old row, never seen again").containsExactly(oldSpray);
        assertThat(book.size()).as("keys with rows").isEqualTo(1);
    }

    @Test
    void givesNoRowToAKeyThatUsedLessThanTheMinimumShareOfItsLimit() {
        // growth-global admits 10 a second, 100 in a 10 s usage window: a key needs 10 of them for a row.
        // Below that it fits in any region's share (each at least the 10% floor), so the default serves it
        BudgetKey light = new BudgetKey("growth-global", "light");

        Plan plan = cycle(usage(ACCOUNT, new long[] {7, 3, 0}, light, new long[] {9, 0, 0}), ALL);

        assertThat(plan.writes()).containsOnlyKeys(ACCOUNT);
        assertThat(plan.rebalanced()).isEqualTo(1);
        assertThat(plan.skipped()).isEqualTo(new Plan.Skipped(0, 0, 1));
    }

    @Test
    void measuresTheMinimumAtTheLimitsSteadyRateSoOneRequestInAWindowIsMuchOfADailyQuota() {
        // one request every 10 s all day would spend 8,640 of the 10,000
        BudgetKey quota = new BudgetKey("daily", "acct_7Q2");

        assertThat(cycle(usage(quota, new long[] {0, 1, 0}), ALL).writes()).containsOnlyKeys(quota);
    }

    @Test
    void measuresTheMinimumAgainstTheKeysOwnLimitWhileItsOverrideIsActive() {
        // raised to 100 a second until 12:01: 1,000 in a window, 100 for a row
        book.reload(stored(2, List.of(new AccountOverride("acct_7Q2", "growth-global", 100, 200, now.plusSeconds(60), "launch")), Map.of()), now);

        assertThat(cycle(usage(ACCOUNT, new long[] {60, 30, 0}), ALL).writes()).isEmpty();
        assertThat(cycle(usage(ACCOUNT, new long[] {70, 30, 0}), ALL).writes()).containsOnlyKeys(ACCOUNT);
        now = now.plusSeconds(60);
        assertThat(cycle(usage(OTHER, new long[] {10, 0, 0}, ACCOUNT, new long[] {10, 0, 0}), ALL).writes())
                .as("expired: 10 a second again").containsOnlyKeys(OTHER, ACCOUNT);
    }

    @Test
    void returnsAKeyWhoseUsageStaysBelowTheMinimumToTheDefaultSplitOnceIdle() {
        cycle(usage(ACCOUNT, new long[] {700, 300, 0}), ALL);
        now = now.plus(Duration.ofMinutes(5));

        Plan plan = cycle(usage(ACCOUNT, new long[] {5, 0, 0}), ALL);

        assertThat(plan.resets()).containsExactly(ACCOUNT);
    }

    @Test
    void rewritesAKeyMissingARegionsRowWhateverTheChange() {
        Map<BudgetKey, double[]> rows = Map.of(ACCOUNT, new double[] {0.63, 0.27, NAN});
        book.reload(stored(2, rows), now);

        Plan plan = cycle(usage(ACCOUNT, new long[] {700, 300, 0}), ALL);

        assertThat(plan.writes()).containsOnlyKeys(ACCOUNT);
    }

    @Test
    void countsRowsFoundAtTakeoverAsSeenThenSoTheyAreResetOnlyAfterTheIdleTime() {
        Map<BudgetKey, double[]> rows = Map.of(ACCOUNT, new double[] {0.63, 0.27, 0.10}, OTHER, new double[] {0.5, 0.4, 0.1});
        book.reload(stored(7, rows), now);

        assertThat(cycle(usage(OTHER, new long[] {50, 40, 10}), ALL).resets()).isEmpty();
        now = now.plus(Duration.ofMinutes(5));
        assertThat(cycle(usage(OTHER, new long[] {50, 40, 10}), ALL).resets()).containsExactly(ACCOUNT);
    }
}
