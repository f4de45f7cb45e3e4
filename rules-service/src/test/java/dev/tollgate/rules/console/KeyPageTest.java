package dev.tollgate.rules.console;

import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Algorithm;
import dev.tollgate.common.rule.Mode;
import dev.tollgate.common.rule.RegionBudget;
import dev.tollgate.rules.usage.KeyUsage;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class KeyPageTest {

    private static final Instant NOW = Instant.parse("2026-11-30T17:00:00Z");

    @Test
    void aHalfEmptyBucketIsFullAgainAfterItsMissingTokensAtTheRefillRateOfThisRegionsShare() {
        // 60 of 120 tokens (burst 200 x share 0.6), refilling 100/s x 0.6 = 60/s: full in 1 s
        KeyUsage.Limit bucket = new KeyUsage.TokenBucket(new KeyUsage.Applied("growth-global", "public-api", Algorithm.TOKEN_BUCKET,
                Mode.ENFORCE, 0.6, false, 12.5), "rl:{a}:growth-global", true, 60, 120, 60, 100, 1);

        KeyPage.Bucket row = KeyPage.of(usage(List.of(bucket))).buckets().get(0);

        assertThat(row.left()).isEqualTo(60);
        assertThat(row.limit()).isEqualTo(120);
        assertThat(row.resets()).isEqualTo("full in 1 s");
        assertThat(row.share()).isEqualTo("60 %");
        assertThat(row.recentRate()).isEqualTo("13/s");
    }

    @Test
    void aLimitWhoseUsageThePodsDoNotReportShowsNoRateAndIsNotCharted() {
        // a per-IP login log is not split across regions, so pods report none of its usage
        KeyUsage.Limit log = new KeyUsage.SlidingLog(new KeyUsage.Applied("login-ip", "auth", Algorithm.SLIDING_LOG, Mode.ENFORCE,
                1.0, false, null), "rl:{a}:login-ip:log", true, 2, 5, 3, 60);
        KeyUsage.Limit bucket = new KeyUsage.TokenBucket(new KeyUsage.Applied("growth-global", "public-api", Algorithm.TOKEN_BUCKET,
                Mode.ENFORCE, 1.0, false, 0.0), "rl:{a}:growth-global", false, 200, 200, 200, 100, 1);

        KeyPage page = KeyPage.of(usage(List.of(log, bucket)));

        assertThat(page.buckets().get(0).ruleId()).isEqualTo("login-ip");
        assertThat(page.buckets().get(0).recentRate()).isEqualTo("not reported");
        assertThat(page.buckets().get(1).recentRate()).isEqualTo("0/s");
        assertThat(page.reportedRuleIds()).containsExactly("growth-global");
    }

    @Test
    void aDailyWindowResetsAtMidnightUtc() {
        KeyUsage.Limit daily = new KeyUsage.FixedWindow(new KeyUsage.Applied("free-daily", "public-api", Algorithm.FIXED_WINDOW,
                Mode.ENFORCE, 1.0, false, 0.0), "q:{a}:free-daily:2026-11-30", "2026-11-30", true, 3, 10_000, 9_997, 86_400);

        KeyPage.Bucket row = KeyPage.of(usage(List.of(daily))).buckets().get(0);

        assertThat(row.left()).isEqualTo(9_997);
        assertThat(row.resets()).isEqualTo("new window in 7 h (2026-12-01T00:00:00Z)");
    }

    @Test
    void bucketsInUseComeFirstAndOnlyTokenBucketsCanBeOverridden() {
        KeyUsage.Limit unused = new KeyUsage.TokenBucket(new KeyUsage.Applied("a-rule", "d", Algorithm.TOKEN_BUCKET, Mode.ENFORCE,
                1.0, false, 0.0), "k", false, 10, 10, 10, 10, 1);
        KeyUsage.Limit used = new KeyUsage.SlidingLog(new KeyUsage.Applied("z-log", "d", Algorithm.SLIDING_LOG, Mode.SHADOW,
                1.0, false, 0.0), "k", true, 5, 5, 0, 60);

        KeyPage page = KeyPage.of(usage(List.of(unused, used)));

        assertThat(page.buckets()).extracting(KeyPage.Bucket::ruleId).containsExactly("z-log", "a-rule");
        assertThat(page.buckets().get(0).empty()).isTrue();
        assertThat(page.buckets().get(0).shadow()).isTrue();
        assertThat(page.overridableRules()).containsExactly("a-rule");
    }

    @Test
    void durationsReadAtAGlance() {
        assertThat(KeyPage.duration(Duration.ofMillis(1))).isEqualTo("1 s");
        assertThat(KeyPage.duration(Duration.ofSeconds(150))).isEqualTo("3 min");
        assertThat(KeyPage.duration(Duration.ofHours(30))).isEqualTo("30 h");
        assertThat(KeyPage.duration(Duration.ofDays(7))).isEqualTo("7 d");
    }

    private static KeyUsage usage(List<KeyUsage.Limit> limits) {
        return new KeyUsage("acct", "us-east", NOW, limits,
                List.of(new AccountOverride("acct", "growth-global", 500, 1000, NOW.plus(Duration.ofDays(7)), "launch week")),
                List.of(new RegionBudget("growth-global", "acct", "us-east", 0.6, NOW)));
    }
}
