package dev.tollgate.limiter;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.Verdict;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.key.RedisKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

import static dev.tollgate.limiter.LimiterFixture.check;
import static dev.tollgate.limiter.LimiterFixture.uniqueKey;
import static org.assertj.core.api.Assertions.assertThat;

/** Sliding logs (login) and fixed windows (daily quotas) on a real Redis Cluster. */
class CountingIT {

    private static final Match LOGIN = new Match(null, "/login");
    private static final Match FREE = new Match("free", null);
    @RegisterExtension
    static final LimiterFixture fixture = new LimiterFixture();

    @Test
    void aSlidingLogAdmitsFivePerWindowAndExpiresOneWindowAfterTheNewest() {
        Rule login = Rule.slidingLog("login-ip", "auth", 5, 60).withMatch(LOGIN);
        Limiter limiter = fixture.limiter(login);
        String ip = "203.0.113." + uniqueKey("9");

        for (int i = 0; i < 5; i++) {
            CheckResponse response = check(limiter, "auth", CheckEntry.of("login-ip", ip, 1));
            assertThat(response.allowed()).isTrue();
            assertThat(response.entries().get(0).remaining()).isEqualTo(4 - i);
        }
        CheckResponse sixth = check(limiter, "auth", CheckEntry.of("login-ip", ip, 1));
        assertThat(sixth.verdict()).isEqualTo(Verdict.DENY);
        assertThat(sixth.entries().get(0).retryMs()).isBetween(55_000L, 60_000L);

        String log = RedisKeys.log(ip, "login-ip");
        assertThat(fixture.redis().zcard(log)).as("a denied attempt is not logged").isEqualTo(5);
        assertThat(fixture.redis().pttl(log)).isBetween(55_000L, 60_000L);
    }

    @Test
    void aSlidingLogTrimsEventsOlderThanTheWindowFirst() throws InterruptedException {
        Rule login = Rule.slidingLog("login-fast", "auth", 2, 1).withMatch(LOGIN);
        Limiter limiter = fixture.limiter(login);
        String ip = uniqueKey("ip");

        assertThat(check(limiter, "auth", CheckEntry.of("login-fast", ip, 1)).allowed()).isTrue();
        assertThat(check(limiter, "auth", CheckEntry.of("login-fast", ip, 1)).allowed()).isTrue();
        CheckResponse denied = check(limiter, "auth", CheckEntry.of("login-fast", ip, 1));
        assertThat(denied.allowed()).isFalse();

        Thread.sleep(denied.entries().get(0).retryMs() + 5);
        assertThat(check(limiter, "auth", CheckEntry.of("login-fast", ip, 1)).allowed()).isTrue();
        assertThat(fixture.redis().zcard(RedisKeys.log(ip, "login-fast"))).isLessThanOrEqualTo(2);
    }

    @Test
    void aDailyQuotaCountsOnTodaysKeyAndADeniedCallCountsNothing() {
        Rule daily = Rule.fixedWindow("free-daily", "api", 3, 86_400).withMatch(FREE);
        Limiter limiter = fixture.limiter(daily);
        String key = uniqueKey("acct");

        for (int i = 0; i < 3; i++) {
            assertThat(check(limiter, "api", CheckEntry.of("free-daily", key, 1)).allowed()).isTrue();
        }
        CheckResponse denied = check(limiter, "api", CheckEntry.of("free-daily", key, 1));
        assertThat(denied.verdict()).isEqualTo(Verdict.DENY);

        String today = DateTimeFormatter.ofPattern("yyyy-MM-dd").withZone(ZoneOffset.UTC)
                .format(Instant.ofEpochMilli(fixture.redisTimeMs(RedisKeys.hashTag(key))));
        String counter = RedisKeys.window(key, "free-daily", today);
        assertThat(fixture.redis().get(counter)).isEqualTo("3");
        // 25 h after the window's start: between 1 h and 25 h from now
        assertThat(fixture.redis().pttl(counter)).isBetween(3_600_000L, 25 * 3_600_000L);
        long untilMidnight = denied.entries().get(0).retryMs();
        assertThat(untilMidnight).isBetween(1L, 86_400_000L);
        assertThat(fixture.redis().pttl(counter) - untilMidnight).isBetween(3_500_000L, 3_600_000L);
    }

    @Test
    void theStoresClockPicksTheWindowWhenThePodsClockIsOff() {
        Rule daily = Rule.fixedWindow("free-daily", "api", 10, 86_400).withMatch(FREE);
        // a pod whose clock is a day behind names yesterday's window; the script corrects it
        Limiter skewed = fixture.limiter(Clock.offset(Clock.systemUTC(), Duration.ofDays(-1)), daily);
        String key = uniqueKey("acct");
        assertThat(check(skewed, "api", CheckEntry.of("free-daily", key, 1)).allowed()).isTrue();

        String today = DateTimeFormatter.ofPattern("yyyy-MM-dd").withZone(ZoneOffset.UTC)
                .format(Instant.ofEpochMilli(fixture.redisTimeMs(RedisKeys.hashTag(key))));
        assertThat(fixture.redis().get(RedisKeys.window(key, "free-daily", today))).isEqualTo("1");
    }

    @Test
    void aCostAboveOneCountsThatManyEvents() {
        Rule daily = Rule.fixedWindow("bulk-daily", "api", 10, 86_400).withMatch(FREE).withMaxCost(10);
        Limiter limiter = fixture.limiter(daily);
        String key = uniqueKey("acct");
        assertThat(check(limiter, "api", CheckEntry.of("bulk-daily", key, 7)).entries().get(0).remaining()).isEqualTo(3);
        assertThat(check(limiter, "api", CheckEntry.of("bulk-daily", key, 4)).allowed()).isFalse();
        assertThat(check(limiter, "api", CheckEntry.of("bulk-daily", key, 3)).allowed()).isTrue();
    }
}
