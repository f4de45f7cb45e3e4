package dev.tollgate.limiter;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.hotkeys.HotKeys;
import dev.tollgate.limiter.rules.StaticRuleBook;
import dev.tollgate.store.InMemoryCounterStore;
import dev.tollgate.testsupport.time.MutableClock;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 31's target for hot keys, on the engine: a key that turns hot at 20,000 checks a second is first in the pod's
 * {@link Limiter#hotKeys()} within 10 s, among background traffic that filled the sketch's previous window already: a
 * flood of distinct keys (10,000/s, each seen once, as a spray of IPs) and ten warm keys (500/s each). Time is
 * simulated, a millisecond at a time, so the rates are exact whatever the machine; every check is a store call
 * (optimizations off), which is what the sketch counts.
 */
class HotKeyFoundTest {

    private static final Logger log = LoggerFactory.getLogger(HotKeyFoundTest.class);
    private static final Match PLAN = new Match("growth", null);
    private static final Duration TARGET = Duration.ofSeconds(10);
    private static final int HOT_PER_MS = 20;
    private static final int FLOOD_PER_MS = 10;
    private static final int WARM_KEYS = 10;

    private final Rule rule = Rule.of("api", "api", new Limit.TokenBucket(100_000, 1, 100_000)).withMatch(PLAN);

    @Test
    void aKeyThatTurnsHotAtTheStartOfAWindowIsFirstWithinTenSeconds() {
        assertThat(timeUntilFirst(Duration.ZERO)).isLessThanOrEqualTo(TARGET);
    }

    @Test
    void aKeyThatTurnsHotJustBeforeTheWindowRollsIsFirstWithinTenSeconds() {
        assertThat(timeUntilFirst(Duration.ofNanos(HotKeys.WINDOW_NANOS).minusMillis(100))).isLessThanOrEqualTo(TARGET);
    }

    @Test
    void aKeyThatTurnsHotMidWindowIsFirstWithinTenSeconds() {
        assertThat(timeUntilFirst(Duration.ofNanos(HotKeys.WINDOW_NANOS / 2))).isLessThanOrEqualTo(TARGET);
    }

    /**
     * Background alone for one whole window and {@code phase} more, then the hot key too; the simulated time from its
     * first check until it is first in the pod's top (asked every 100 ms), or a time past the target when it never is.
     */
    private Duration timeUntilFirst(Duration phase) {
        MutableClock clock = new MutableClock(Instant.parse("2026-12-01T00:00:00Z"));
        InMemoryCounterStore store = new InMemoryCounterStore(() -> clock.nanos() / 1_000);
        Limiter limiter = Limiter.builder(new StaticRuleBook(List.of(rule)), store)
                .clock(clock)
                .nanoTime(clock::nanos)
                .build();
        long flood = 0;
        long backgroundMs = TimeUnit.NANOSECONDS.toMillis(HotKeys.WINDOW_NANOS) + phase.toMillis();
        for (long ms = 0; ms < backgroundMs; ms++) {
            flood = background(limiter, ms, flood);
            clock.advance(Duration.ofMillis(1));
        }
        for (long ms = 0; ms <= TARGET.toMillis() * 2; ms++) {
            for (int i = 0; i < HOT_PER_MS; i++) {
                check(limiter, "acct_hot");
            }
            flood = background(limiter, backgroundMs + ms, flood);
            clock.advance(Duration.ofMillis(1));
            if (ms % 100 == 99 && first(limiter).filter("acct_hot"::equals).isPresent()) {
                Duration found = Duration.ofMillis(ms + 1);
                log.info("a 20,000/s key that turned hot {} ms into a window was first after {} ms", phase.toMillis(), found.toMillis());
                return found;
            }
        }
        return TARGET.multipliedBy(2).plusMillis(1);
    }

    private long background(Limiter limiter, long ms, long flood) {
        for (int i = 0; i < FLOOD_PER_MS; i++) {
            check(limiter, "ip-" + flood++);
        }
        // 10 warm keys at 500/s each: five checks a millisecond, the keys taken in turn
        for (int j = 0; j < 5; j++) {
            check(limiter, "acct_warm_" + ((ms * 5 + j) % WARM_KEYS));
        }
        return flood;
    }

    private void check(Limiter limiter, String key) {
        assertThat(limiter.check(new CheckRequest("api", List.of(CheckEntry.of("api", key, 1)))).join().answered())
                .hasValueSatisfying(response -> assertThat(response.allowed()).isTrue());
    }

    private static Optional<String> first(Limiter limiter) {
        return limiter.hotKeys().top(1).stream().findFirst().map(HotKeys.HotKey::key);
    }
}
