package dev.tollgate.limiter.metrics;

import dev.tollgate.common.check.Verdict;
import dev.tollgate.common.rule.Mode;
import dev.tollgate.common.rule.Rule;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Per-rule hits as Envoy's ratelimit counts them, and histograms budgeted around the 1 ms SLO. */
class LimiterMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final LimiterMetrics metrics = new LimiterMetrics(registry, 0.8);
    private final Rule rule = Rule.tokenBucket("growth-global", "public-api", 100, 200);

    @Test
    void weighsHitsByCostAndSplitsWithinFromNearTheLimit() {
        metrics.hit(rule, Verdict.ALLOW, 3, 150, 1.0);
        metrics.hit(rule, Verdict.ALLOW, 5, 39, 1.0);
        metrics.hit(rule, Verdict.ALLOW, 1, 40, 1.0);

        assertThat(hits("within_limit")).as("40 left of 200 is exactly a fifth: not yet near").isEqualTo(4);
        assertThat(hits("near_limit")).isEqualTo(5);
    }

    @Test
    void measuresNearnessAgainstTheRegionsShareOfTheLimit() {
        // 0.25 of a 200 burst is 50: 9 left is under a fifth of it
        metrics.hit(rule, Verdict.ALLOW, 1, 9, 0.25);

        assertThat(hits("near_limit")).isEqualTo(1);
    }

    @Test
    void countsDeniesAsOverTheLimitAndShadowDeniesApart() {
        metrics.hit(rule, Verdict.DENY, 2, 0, 1.0);
        metrics.hit(rule.withMode(Mode.SHADOW), Verdict.DENY, 1, 0, 1.0);

        assertThat(hits("over_limit")).isEqualTo(2);
        assertThat(hits("shadow_mode")).isEqualTo(1);
    }

    @Test
    void countsLocalAnswersByRuleAndDomain() {
        metrics.localAnswer(rule, "lease");
        metrics.localAnswer(rule, "lease");
        metrics.localAnswer(rule, "deny_cache");

        assertThat(registry.get(LimiterMetrics.LOCAL_ANSWERS).tag("rule", "growth-global").tag("domain", "public-api")
                .tag("answer", "lease").counter().count()).isEqualTo(2);
    }

    @Test
    void keepsEachSeriesApartByEveryTag() {
        Rule sameIdElsewhere = Rule.tokenBucket("growth-global", "auth", 100, 200);
        Rule other = Rule.tokenBucket("free-global", "public-api", 10, 20);
        metrics.decided("growth-global", Verdict.ALLOW);
        metrics.decided("growth-global", Verdict.DENY);
        metrics.decided("growth-global", Verdict.DENY);
        metrics.decided("free-global", Verdict.DENY);
        metrics.hit(rule, Verdict.DENY, 1, 0, 1.0);
        metrics.hit(sameIdElsewhere, Verdict.DENY, 4, 0, 1.0);
        metrics.localAnswer(other, "lease");
        metrics.localAnswer(rule, "lease");
        metrics.localAnswer(rule, "lease");
        metrics.localAnswer(sameIdElsewhere, "lease");

        assertThat(decisions("growth-global", "allow")).isEqualTo(1);
        assertThat(decisions("growth-global", "deny")).isEqualTo(2);
        assertThat(decisions("free-global", "deny")).isEqualTo(1);
        assertThat(registry.get(LimiterMetrics.RULE_HITS).tag("rule", "growth-global").tag("domain", "auth").tag("outcome", "over_limit")
                .counter().count()).isEqualTo(4);
        assertThat(hits("over_limit")).isEqualTo(1);
        assertThat(registry.get(LimiterMetrics.LOCAL_ANSWERS).tag("rule", "growth-global").tag("domain", "public-api").counter().count())
                .isEqualTo(2);
        // the same rule id in another domain is another rule: its own series, not a share of the first one's
        assertThat(registry.get(LimiterMetrics.LOCAL_ANSWERS).tag("rule", "growth-global").tag("domain", "auth").counter().count())
                .isEqualTo(1);
        assertThat(registry.get(LimiterMetrics.LOCAL_ANSWERS).tag("rule", "free-global").counter().count()).isEqualTo(1);
    }

    @Test
    void publishesAFewBucketsWithAnEdgeAtTheOneMillisecondBudget() {
        metrics.checked(metrics.startCheck(), Verdict.ALLOW);
        Timer checks = registry.get(LimiterMetrics.CHECKS).timer();
        CountAtBucket[] buckets = checks.takeSnapshot().histogramCounts();

        assertThat(buckets).hasSizeLessThanOrEqualTo(15);
        assertThat(buckets).anySatisfy(b -> assertThat(b.bucket(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(1.0));
        assertThat(buckets[0].bucket(java.util.concurrent.TimeUnit.MICROSECONDS)).isLessThanOrEqualTo(50.0);
    }

    @Test
    void refusesANearLimitRatioOutsideZeroToOne() {
        assertThatThrownBy(() -> new LimiterMetrics(registry, 0)).hasMessageContaining("near-limit-ratio");
        assertThatThrownBy(() -> new LimiterMetrics(registry, 1.5)).hasMessageContaining("near-limit-ratio");
    }

    private double hits(String outcome) {
        return registry.get(LimiterMetrics.RULE_HITS).tag("rule", "growth-global").tag("domain", "public-api")
                .tag("outcome", outcome).counter().count();
    }

    private double decisions(String rule, String verdict) {
        return registry.get(LimiterMetrics.DECISIONS).tag("rule", rule).tag("verdict", verdict).counter().count();
    }
}
