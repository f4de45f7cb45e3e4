package dev.tollgate.limiter;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.Verdict;
import dev.tollgate.common.rule.FailMode;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.key.RedisKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static dev.tollgate.limiter.LimiterFixture.check;
import static dev.tollgate.limiter.LimiterFixture.uniqueKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A denied request spends nothing, on a real cluster: the limits of one key, whatever their algorithms,
 * are one all-or-nothing script; limits on different keys (different slots) are separate scripts, so the
 * groups that admitted a request another group denied give back what they spent.
 */
class NoSpendOnDenyIT {

    private static final Match LOGIN = new Match(null, "/login");
    @RegisterExtension
    static final LimiterFixture fixture = new LimiterFixture();

    /** One token a day: any change in its level is a spend (the refill is a milli-token a minute). */
    private final Rule account = Rule.of("account-login", "auth", new Limit.TokenBucket(1, 86_400, 100)).withMatch(LOGIN);
    private final Rule perIp = Rule.slidingLog("login-ip", "auth", 2, 60).withMatch(LOGIN);
    private final Rule daily = Rule.fixedWindow("account-daily", "auth", 2, 86_400).withMatch(LOGIN);

    @Test
    void aRequestDeniedByItsPerIpLogLeavesItsAccountBucketWhereItWas() {
        Limiter limiter = fixture.limiter(account, perIp);
        String user = uniqueKey("user");
        String ip = uniqueKey("ip");
        for (int i = 0; i < 2; i++) {
            assertThat(check(limiter, "auth", CheckEntry.of("account-login", user, 1), CheckEntry.of("login-ip", ip, 1)).allowed()).isTrue();
        }
        long before = level(user);
        assertThat(before).isBetween(97_900L, 98_100L);

        CheckResponse denied = check(limiter, "auth", CheckEntry.of("account-login", user, 1), CheckEntry.of("login-ip", ip, 1));
        assertThat(denied.verdict()).isEqualTo(Verdict.DENY);
        assertThat(denied.entries().get(0).verdict()).as("the bucket alone would have allowed it").isEqualTo(Verdict.ALLOW);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(level(user)).isBetween(before, before + 500));
        assertThat(fixture.metrics.registry().counter("tollgate.refunds", "outcome", "ok").count()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void aRequestDeniedByItsBucketAddsNothingToItsLoginLog() {
        Rule empty = Rule.of("account-login", "auth", new Limit.TokenBucket(1, 86_400, 1)).withMatch(LOGIN);
        Limiter limiter = fixture.limiter(empty, perIp);
        String user = uniqueKey("user");
        assertThat(check(limiter, "auth", CheckEntry.of("account-login", user, 1)).allowed()).isTrue();

        String ip = uniqueKey("ip");
        CheckResponse denied = check(limiter, "auth", CheckEntry.of("account-login", user, 1), CheckEntry.of("login-ip", ip, 1));
        assertThat(denied.verdict()).isEqualTo(Verdict.DENY);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(fixture.redis().zcard(RedisKeys.log(ip, "login-ip"))).isZero());
        // the log's two attempts are all still there to be used
        assertThat(check(limiter, "auth", CheckEntry.of("login-ip", ip, 1)).allowed()).isTrue();
        assertThat(check(limiter, "auth", CheckEntry.of("login-ip", ip, 1)).allowed()).isTrue();
    }

    @Test
    void aBucketAndADailyQuotaOnOneKeySpendTogetherOrNotAtAll() {
        Limiter limiter = fixture.limiter(account, daily);
        String user = uniqueKey("user");
        for (int i = 0; i < 2; i++) {
            assertThat(check(limiter, "auth", CheckEntry.of("account-login", user, 1), CheckEntry.of("account-daily", user, 1)).allowed()).isTrue();
        }
        long before = level(user);
        double refunds = refunds();
        CheckResponse denied = check(limiter, "auth", CheckEntry.of("account-login", user, 1), CheckEntry.of("account-daily", user, 1));
        assertThat(denied.verdict()).as("the quota is used up").isEqualTo(Verdict.DENY);
        assertThat(denied.entries().get(0).verdict()).as("the bucket alone would have allowed it").isEqualTo(Verdict.ALLOW);
        // one script: the bucket was never spent, so there is nothing to give back and no window in which it shows
        assertThat(level(user)).isBetween(before, before + 500);
        assertThat(refunds()).isEqualTo(refunds);
    }

    private double refunds() {
        return fixture.metrics.registry().find("tollgate.refunds").counters().stream().mapToDouble(c -> c.count()).sum();
    }

    @Test
    void aFailClosedRuleThatCannotAnswerTakesBackWhatTheOthersSpent() {
        // the check fails closed (503/504): the gateway denies the request, so nothing of it may stay spent
        Rule closedLog = perIp.withFailMode(FailMode.CLOSED);
        Limiter limiter = fixture.limiter(account, closedLog);
        String user = uniqueKey("user");
        assertThat(check(limiter, "auth", CheckEntry.of("account-login", user, 1)).allowed()).isTrue();
        long before = level(user);
        String ip = uniqueKey("ip");
        fixture.redis().set(RedisKeys.log(ip, "login-ip"), "not a log");
        try {
            check(limiter, "auth", CheckEntry.of("account-login", user, 1), CheckEntry.of("login-ip", ip, 1));
        } catch (RuntimeException expected) {
            // 503: the log's key holds the wrong type
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(level(user)).isBetween(before, before + 500));
    }

    private long level(String user) {
        return Long.parseLong(fixture.redis().hget(RedisKeys.limit(user, "account-login"), "tokens_milli"));
    }
}
