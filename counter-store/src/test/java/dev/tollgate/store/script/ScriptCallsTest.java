package dev.tollgate.store.script;

import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Rule;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ScriptCallsTest {

    @Test
    void tokenBucketArgsAreIntegerMilliTokens() {
        Rule growth = Rule.tokenBucket("growth-global", "d", 100, 200);
        Rule route = Rule.tokenBucket("labels-route", "d", 10, 20);
        ScriptCall call = SpendCall.of("acct_7Q2", List.of(new Spend(growth, 1.0, 1), new Spend(route, 1.0, 2)), 50, 50, 0);
        assertThat(call.keys()).containsExactly("rl:{acct_7Q2}:growth-global", "rl:{acct_7Q2}:labels-route");
        assertThat(call.args()).containsExactly("50", "50", "bucket", "100000", "1000", "200000", "1", "bucket", "10000", "1000", "20000", "2");
    }

    @Test
    void aPerMinuteRateKeepsItsPeriodInsteadOfAFraction() {
        Rule perMinute = Rule.of("m", "d", new Limit.TokenBucket(5, 60, 5));
        ScriptCall call = SpendCall.of("k", List.of(new Spend(perMinute, 1.0, 1)), 1, 1, 0);
        assertThat(call.args()).containsExactly("1", "1", "bucket", "5000", "60000", "5000", "1");
    }

    @Test
    void aRegionShareScalesRateAndBurstButNeverBelowOneRequest() {
        Rule free = Rule.tokenBucket("free", "d", 10, 20);
        ScriptCall call = SpendCall.of("k", List.of(new Spend(free, 0.15, 1)), 1, 1, 0);
        assertThat(call.args()).containsExactly("1", "1", "bucket", "1500", "1000", "3000", "1");
        ScriptCall tiny = SpendCall.of("k", List.of(new Spend(Rule.tokenBucket("t", "d", 1, 1), 0.0001, 1)), 1, 1, 0);
        assertThat(tiny.args()).containsExactly("1", "1", "bucket", "1", "1000", "1000", "1");
    }

    @Test
    void aShareOutsideZeroToOneIsRefused() {
        Rule free = Rule.tokenBucket("free", "d", 10, 20);
        assertThatThrownBy(() -> new Spend(free, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Spend(free, 1.5, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aDailyWindowIsNamedByItsUtcDate() {
        Rule daily = Rule.fixedWindow("free-daily", "d", 10_000, 86_400);
        long now = Instant.parse("2026-09-30T23:59:59.999Z").toEpochMilli();
        ScriptCall call = SpendCall.of("acct_7Q2", List.of(new Spend(daily, 1.0, 1)), 1, 1, now);
        long start = Instant.parse("2026-09-30T00:00:00Z").toEpochMilli();
        assertThat(call.keys()).containsExactly("q:{acct_7Q2}:free-daily:2026-09-30");
        assertThat(call.args()).containsExactly("1", "1", "window", "10000", "86400000", "1", Long.toString(start));
    }

    @Test
    void aShorterWindowIsNamedByItsStart() {
        Rule hourly = Rule.fixedWindow("h", "d", 100, 3600);
        long now = Instant.parse("2026-09-30T13:05:00Z").toEpochMilli();
        ScriptCall call = SpendCall.of("k", List.of(new Spend(hourly, 1.0, 1)), 1, 1, now);
        assertThat(call.keys()).containsExactly("q:{k}:h:2026-09-30T13:00:00Z");
    }

    @Test
    void slidingLogArgsAreLimitWindowAndCost() {
        Rule login = Rule.slidingLog("login-ip", "auth", 5, 60);
        ScriptCall call = SpendCall.of("203.0.113.9", List.of(new Spend(login, 1.0, 1)), 1, 1, 0);
        assertThat(call.keys()).containsExactly("rl:{203.0.113.9}:login-ip:log");
        assertThat(call.args()).containsExactly("1", "1", "log", "5", "60000", "1", "0");
    }

    @Test
    void limitsOfOneKeyGoInOneCallWhateverTheirAlgorithm() {
        Rule account = Rule.tokenBucket("acct", "d", 10, 20);
        Rule daily = Rule.fixedWindow("daily", "d", 1_000, 86_400);
        Rule login = Rule.slidingLog("login", "d", 5, 60);
        long now = Instant.parse("2026-09-30T13:05:00Z").toEpochMilli();
        ScriptCall call = SpendCall.of("acct_7Q2", List.of(new Spend(account, 1.0, 1), new Spend(daily, 1.0, 1), new Spend(login, 1.0, 1)), 1, 3, now);
        assertThat(call.keys()).containsExactly("rl:{acct_7Q2}:acct", "q:{acct_7Q2}:daily:2026-09-30", "rl:{acct_7Q2}:login:log");
        assertThat(call.args()).hasSize(2 + 3 * 5).startsWith("1", "3", "bucket");
    }

    @Test
    void aReplyReadsBackPerKey() {
        GroupReply reply = GroupReply.parse(List.of(0L, 80L, 400L, 0L, 1990L, -3L, 500L), 2);
        assertThat(reply.allowed()).isFalse();
        assertThat(reply.retryMs()).isEqualTo(80);
        assertThat(reply.holdMs()).isEqualTo(400);
        assertThat(reply.remaining()).containsExactly(0, 0);
        assertThat(reply.resetMs()).containsExactly(1990, 500);
        assertThat(GroupReply.parse(List.of(0L, 80L, 0L, 0L, 100L), 1).holdMs()).as("never shorter than the retry").isEqualTo(80);
        assertThatThrownBy(() -> GroupReply.parse(List.of(1L, 0L, 0L), 1)).isInstanceOf(IllegalStateException.class);
    }
}
