package dev.tollgate.rules.simulate;

import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.InMemoryCounterStore;
import dev.tollgate.store.script.ScriptCall;
import dev.tollgate.store.script.Spend;
import dev.tollgate.store.script.SpendCall;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class ReplayTest {

    private static final long FIRST_WINDOW = 1_790_000_000L;

    /** The same evenly spread checks through the in-memory store's spend script (held to spend.lua by the contract suite). */
    private static long deniedByTheScript(Rule rule, long[] checks) {
        AtomicLong micros = new AtomicLong();
        InMemoryCounterStore store = new InMemoryCounterStore(micros::get);
        long denied = 0;
        for (int w = 0; w < checks.length; w++) {
            long start = (FIRST_WINDOW + 10L * w) * 1000;
            for (long i = 0; i < checks[w]; i++) {
                long now = start + Math.floorDiv((2 * i + 1) * 10_000, 2 * checks[w]);
                micros.set(now * 1000);
                ScriptCall call = SpendCall.of("acct_1", List.of(new Spend(rule, 1.0, 1)), 1, 1, now);
                if (store.run(call.script(), call.keys(), call.args()).join().get(0) == 0) {
                    denied++;
                }
            }
        }
        return denied;
    }

    @Test
    void deniesWhatTheSpendScriptDeniesForEvenlySpreadChecks() {
        for (Rule rule : List.of(Rule.tokenBucket("stricter", "public-api", 5, 10), Rule.tokenBucket("odd", "public-api", 3, 7),
                Rule.fixedWindow("minute", "public-api", 100, 60), Rule.fixedWindow("seven", "public-api", 20, 7),
                Rule.slidingLog("login", "auth", 30, 25))) {
            long[] checks = {200, 200, 0, 35, 120, 7, 500, 200};

            Replay.Result result = new Replay(rule, 1.0).run(FIRST_WINDOW, checks);

            assertThat(result.total()).as(rule.id()).isEqualTo(deniedByTheScript(rule, checks));
            assertThat(Arrays.stream(result.denied()).sum()).isEqualTo(result.total());
        }
    }

    @Test
    void replaysABusyWindowPerMillisecondAsTheScriptWouldSeeIt() {
        Rule rule = Rule.tokenBucket("busy", "public-api", 1_000, 2_000);
        long[] checks = {25_000, 12_001};

        Replay.Result result = new Replay(rule, 1.0).run(FIRST_WINDOW, checks);

        assertThat(result.total()).isEqualTo(deniedByTheScript(rule, checks));
    }

    @Test
    void boundsATokenBucketByOneWindowsRefillPerContestedWindowAndOneBurst() {
        Rule rule = Rule.tokenBucket("stricter", "public-api", 5, 10);
        long[] steady = new long[6];
        Arrays.fill(steady, 200);

        Replay.Result result = new Replay(rule, 1.0).run(FIRST_WINDOW, steady);

        // 5/s refills 50 a window; the first window also spends the full burst
        assertThat(result.total()).isBetween(6 * 200 - (10 + 6 * 50) - 1L, 6 * 200 - (10 + 6 * 50) + 1L);
        assertThat(result.errorBound()).isEqualTo(10 + 6 * 51);
    }

    @Test
    void aKeyNoOrderCouldDenyHasNoError() {
        Rule rule = Rule.tokenBucket("lenient", "public-api", 100, 200);
        long[] quiet = {50, 80, 0, 120, 60};

        Replay.Result result = new Replay(rule, 1.0).run(FIRST_WINDOW, quiet);

        assertThat(result.total()).isZero();
        assertThat(result.errorBound()).as("at most 200 checks in any 20 s: never over the burst").isZero();
    }

    @Test
    void countsAFixedWindowAlignedOnTheUsageWindowsExactlyButForItsFirst() {
        Rule rule = Rule.fixedWindow("minute", "public-api", 100, 60);
        long[] checks = new long[12];
        Arrays.fill(checks, 30);

        Replay.Result result = new Replay(rule, 1.0).run(FIRST_WINDOW - FIRST_WINDOW % 60, checks);

        assertThat(result.total()).isEqualTo(2 * (180 - 100));
        assertThat(result.errorBound()).as("the count before the span is not known").isEqualTo(100);
    }

    @Test
    void scalesTheRuleToTheRegionsShareAsTheEngineDoes() {
        Rule rule = Rule.tokenBucket("shared", "public-api", 10, 20);
        long[] checks = {200};

        assertThat(new Replay(rule, 0.5).run(FIRST_WINDOW, checks).total()).isBetween(200 - (10 + 50) - 1L, 200 - (10 + 50) + 1L);
    }
}
