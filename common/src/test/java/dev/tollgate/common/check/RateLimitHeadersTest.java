package dev.tollgate.common.check;

import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Rule;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

class RateLimitHeadersTest {

    private static final Rule PER_SECOND = Rule.tokenBucket("per-second", "api", 100, 200);
    private static final Rule PER_MINUTE = Rule.fixedWindow("per-minute", "api", 1000, 60);
    private static final Rule LOGIN = Rule.slidingLog("login", "api", 5, 300);

    @Test
    void anAllowNamesTheEntryWithTheLeastLeft() {
        CheckResponse response = CheckResponse.of(List.of(
                EntryResult.allowed("per-second", 150, 500).withQuotaOf(PER_SECOND),
                EntryResult.allowed("per-minute", 40, 30_000).withQuotaOf(PER_MINUTE)));

        assertThat(response.headers()).containsExactly(
                entry("RateLimit-Policy", "\"per-minute\";q=1000;w=60"),
                entry("RateLimit", "\"per-minute\";r=40;t=30"));
    }

    @Test
    void equalRemainingPicksTheLaterReset() {
        CheckResponse response = CheckResponse.of(List.of(
                EntryResult.allowed("per-second", 7, 400).withQuotaOf(PER_SECOND),
                EntryResult.allowed("per-minute", 7, 12_001).withQuotaOf(PER_MINUTE)));

        assertThat(response.headers()).containsEntry("RateLimit", "\"per-minute\";r=7;t=13");
    }

    @Test
    void aTokenBucketAdvertisesItsRatePerPeriod() {
        Rule perMinutePlan = PER_SECOND.withLimit(new Limit.TokenBucket(100, 60, 200));
        RateLimitHeaders headers = RateLimitHeaders.of(Verdict.ALLOW,
                List.of(EntryResult.allowed("per-second", 199, 10).withQuotaOf(perMinutePlan)));

        // the bucket holds its burst (200) when full, so r may exceed q: the sustained rate is q per w
        assertThat(headers.policy()).isEqualTo("\"per-second\";q=100;w=60");
        assertThat(headers.rateLimit()).isEqualTo("\"per-second\";r=199;t=1");
        assertThat(headers.retryAfter()).isNull();
    }

    @Test
    void aDenyNamesTheDenyingEntryWithTheLongestWaitAndSetsRetryAfter() {
        CheckResponse response = CheckResponse.of(List.of(
                EntryResult.allowed("per-minute", 2, 50_000).withQuotaOf(PER_MINUTE),
                EntryResult.denied("per-second", 0, 2_000, 10).withQuotaOf(PER_SECOND),
                EntryResult.denied("login", 0, 300_000, 41_200).withQuotaOf(LOGIN)));

        assertThat(response.headers()).containsExactly(
                entry("RateLimit-Policy", "\"login\";q=5;w=300"),
                entry("RateLimit", "\"login\";r=0;t=42"),
                entry("Retry-After", "42"));
    }

    @Test
    void aGroupDenyNamesTheEntryThatRanOut() {
        // one key's entries are spent in one script: all deny with the group's wait, only one lacked tokens
        CheckResponse response = CheckResponse.of(List.of(
                EntryResult.denied("per-minute", 56, 4_000, 1_000).withQuotaOf(PER_MINUTE),
                EntryResult.denied("per-second", 0, 3_000, 1_000).withQuotaOf(PER_SECOND)));

        assertThat(response.headers()).containsEntry("RateLimit-Policy", "\"per-second\";q=100;w=1");
    }

    @Test
    void aDenyThePodAnsweredItselfNamesTheSlowestLimit() {
        // the deny cache and the local bucket answer "nothing left, retry in n" for every entry of the group
        CheckResponse response = CheckResponse.of(List.of(
                EntryResult.denied("per-minute", 0, 1_000, 1_000).withQuotaOf(PER_MINUTE),
                EntryResult.denied("login", 0, 1_000, 1_000).withQuotaOf(LOGIN),
                EntryResult.denied("per-second", 0, 1_000, 1_000).withQuotaOf(PER_SECOND)));

        assertThat(response.headers()).containsEntry("RateLimit-Policy", "\"login\";q=5;w=300");
    }

    @Test
    void aDenyAsksForAtLeastOneSecond() {
        RateLimitHeaders headers = RateLimitHeaders.of(Verdict.DENY,
                List.of(EntryResult.denied("per-second", 0, 10, 0).withQuotaOf(PER_SECOND)));

        assertThat(headers.retryAfter()).isEqualTo("1");
        assertThat(headers.rateLimit()).isEqualTo("\"per-second\";r=0;t=1");
    }

    @Test
    void aShadowEntryIsNeverTheDenyingOne() {
        CheckResponse response = CheckResponse.of(List.of(
                EntryResult.denied("login", 0, 300_000, 90_000).withQuotaOf(LOGIN).asShadow(),
                EntryResult.denied("per-second", 0, 2_000, 2_000).withQuotaOf(PER_SECOND)));

        assertThat(response.headers()).containsEntry("RateLimit-Policy", "\"per-second\";q=100;w=1")
                .containsEntry("Retry-After", "2");
    }

    @Test
    void aShadowDenyAloneSetsNoRetryAfterAndAdvertisesTheEnforcedLimit() {
        CheckResponse response = CheckResponse.of(List.of(
                EntryResult.denied("login", 0, 300_000, 90_000).withQuotaOf(LOGIN).asShadow(),
                EntryResult.allowed("per-second", 150, 500).withQuotaOf(PER_SECOND)));

        assertThat(response.verdict()).isEqualTo(Verdict.ALLOW);
        assertThat(response.headers()).containsExactly(
                entry("RateLimit-Policy", "\"per-second\";q=100;w=1"),
                entry("RateLimit", "\"per-second\";r=150;t=1"));
    }

    @Test
    void unknownRulesAndShadowOnlyAnswersHaveNoHeaders() {
        CheckResponse response = CheckResponse.of(List.of(
                EntryResult.unknown("nope"),
                EntryResult.allowed("per-minute", 0, 1_000).withQuotaOf(PER_MINUTE).asShadow()));

        assertThat(response.headers()).isEmpty();
    }

    @Test
    void anUnknownRuleNeverOutranksAKnownOne() {
        // an unknown rule reports remaining 0, which would otherwise look like the strictest
        CheckResponse response = CheckResponse.of(List.of(
                EntryResult.unknown("nope"),
                EntryResult.allowed("per-second", 150, 500).withQuotaOf(PER_SECOND)));

        assertThat(response.headers()).containsEntry("RateLimit", "\"per-second\";r=150;t=1");
    }

    @Test
    void aFailOpenEntryIsAdvertisedWithItsFallbackFigures() {
        CheckResponse allowed = CheckResponse.of(List.of(
                EntryResult.allowed("per-second", 37, 0).withFallback("fail_open").withQuotaOf(PER_SECOND)));
        CheckResponse denied = CheckResponse.of(List.of(
                EntryResult.denied("per-second", 0, 1_500, 1_500).withFallback("fail_open").withQuotaOf(PER_SECOND)));

        assertThat(allowed.headers()).containsExactly(
                entry("RateLimit-Policy", "\"per-second\";q=100;w=1"),
                entry("RateLimit", "\"per-second\";r=37;t=0"));
        assertThat(denied.headers()).containsEntry("Retry-After", "2").containsEntry("RateLimit", "\"per-second\";r=0;t=2");
    }

    @Test
    void aDenyWithoutAKnownQuotaStillSetsRetryAfter() {
        RateLimitHeaders headers = RateLimitHeaders.of(Verdict.DENY, List.of(EntryResult.denied("x", 0, 5_000, 2_500)));

        assertThat(headers.asMap()).containsExactly(entry("Retry-After", "3"));
    }

    @Test
    void aNegativeRemainingIsAdvertisedAsZero() {
        RateLimitHeaders headers = RateLimitHeaders.of(Verdict.ALLOW,
                List.of(EntryResult.allowed("per-second", -3, 900).withQuotaOf(PER_SECOND)));

        assertThat(headers.rateLimit()).isEqualTo("\"per-second\";r=0;t=1");
    }

    @Test
    void policyNamesAreEscapedAsStructuredFieldStrings() {
        assertThat(RateLimitHeaders.sfString("a\"b\\c")).isEqualTo("\"a\\\"b\\\\c\"");
        assertThat(RateLimitHeaders.sfString("caf\u00e9\n")).isEqualTo("\"caf??\"");
    }

    @Test
    void noEntriesNoHeaders() {
        assertThat(RateLimitHeaders.of(Verdict.ALLOW, List.of()).asMap()).isEqualTo(Map.of());
    }
}
