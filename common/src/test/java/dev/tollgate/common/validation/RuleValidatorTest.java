package dev.tollgate.common.validation;

import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Algorithm;
import dev.tollgate.common.rule.Counting;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleFields;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class RuleValidatorTest {

    private static final Match GROWTH = new Match("growth", null);
    private static final Match LOGIN = new Match(null, "/login");

    private final RuleValidator validator = new RuleValidator();

    static Rule growth() {
        return Rule.tokenBucket("growth-global", "public-api", 100, 200).withMatch(GROWTH);
    }

    @Test
    void acceptsTheDesignsPlans() {
        assertThat(validator.validate(Rule.tokenBucket("free-global", "public-api", 10, 20).withMatch(new Match("free", null)))).isEmpty();
        assertThat(validator.validate(growth())).isEmpty();
        assertThat(validator.validate(Rule.slidingLog("login-ip", "auth", 5, 60).withMatch(new Match(null, "/login")))).isEmpty();
        assertThat(validator.validate(Rule.fixedWindow("free-daily", "public-api", 10_000, 86_400).withMatch(new Match("free", null)))).isEmpty();
    }

    static Stream<Arguments> badRules() {
        Rule growth = growth();
        return Stream.of(
                Arguments.of("rate zero", rateAndBurst(growth, 0, 200), "rate_per_s"),
                Arguments.of("rate negative", rateAndBurst(growth, -5, 200), "rate_per_s"),
                Arguments.of("burst below max cost", growth.withMaxCost(300), "burst"),
                Arguments.of("match covers everything", growth.withMatch(new Match("*", null)), "match"),
                Arguments.of("missing rate", new RuleFields("r", "d", GROWTH, null, Algorithm.TOKEN_BUCKET, null, 1, 10, null, null, null, null, null, 1L), "rate_per_s"),
                Arguments.of("missing burst", new RuleFields("r", "d", GROWTH, null, Algorithm.TOKEN_BUCKET, 10, 1, null, null, null, null, null, null, 1L), "burst"),
                Arguments.of("missing limit", new RuleFields("r", "d", GROWTH, null, Algorithm.SLIDING_LOG, null, null, null, null, 60, null, null, null, 1L), "limit"),
                Arguments.of("missing window", new RuleFields("r", "d", GROWTH, null, Algorithm.FIXED_WINDOW, null, null, null, 100, null, null, null, null, 1L), "window_s"),
                Arguments.of("limit below max cost", Rule.fixedWindow("q", "d", 5, 60).withMatch(GROWTH).withMaxCost(6), "limit"),
                Arguments.of("missing algorithm", new RuleFields("r", "d", GROWTH, null, null, 10, 1, 20, null, null, null, null, null, 1L), "algorithm"),
                Arguments.of("id with a brace", Rule.tokenBucket("a{b}", "d", 1, 1).withMatch(GROWTH), "id"),
                Arguments.of("id with a colon", Rule.tokenBucket("a:b", "d", 1, 1).withMatch(GROWTH), "id"),
                Arguments.of("missing domain", Rule.tokenBucket("r", null, 1, 1).withMatch(GROWTH), "domain"),
                Arguments.of("period zero", growth().withLimit(new Limit.TokenBucket(100, 0, 200)), "period_s"),
                Arguments.of("burst × period too large for exact arithmetic", Rule.of("r", "d", new Limit.TokenBucket(1, 86_400, 50_000)).withMatch(GROWTH), "burst"),
                Arguments.of("max cost zero", growth.withMaxCost(0), "max_cost"),
                // added with rules-service, whose 422 table runs the same rules over HTTP
                Arguments.of("burst zero", rateAndBurst(growth, 100, 0), "burst"),
                Arguments.of("rate above the bound", rateAndBurst(growth, RuleValidator.MAX_RATE + 1, 200), "rate_per_s"),
                Arguments.of("no match at all", growth.withMatch(null), "match"),
                Arguments.of("match * and *", growth.withMatch(new Match("*", "*")), "match"),
                Arguments.of("limit zero", Rule.fixedWindow("q", "d", 0, 60).withMatch(GROWTH), "limit"),
                Arguments.of("window zero", Rule.slidingLog("q", "d", 5, 0).withMatch(GROWTH), "window_s"),
                // bounded: a sliding log costs one ZADD per unit of cost and holds one member per admitted unit
                Arguments.of("sliding log limit above 10,000", Rule.slidingLog("q", "d", 10_001, 60).withMatch(LOGIN), "limit"),
                Arguments.of("sliding log max cost above 100", Rule.slidingLog("q", "d", 1_000, 60).withMatch(LOGIN).withMaxCost(101), "max_cost"),
                // bounded, with no control character or broken UTF-16: text that every pod holds and ships
                Arguments.of("domain too long", Rule.tokenBucket("r", "d".repeat(RuleValidator.MAX_DOMAIN + 1), 1, 1).withMatch(GROWTH), "domain"),
                Arguments.of("domain with a control character", Rule.tokenBucket("r", "public\u0000api", 1, 1).withMatch(GROWTH), "domain"),
                Arguments.of("domain with a lone surrogate", Rule.tokenBucket("r", "api\uD800", 1, 1).withMatch(GROWTH), "domain"),
                Arguments.of("plan too long", growth.withMatch(new Match("p".repeat(RuleValidator.MAX_MATCH + 1), null)), "match.plan"),
                Arguments.of("plan with a newline", growth.withMatch(new Match("gro\nwth", null)), "match.plan"),
                Arguments.of("route too long", growth.withMatch(new Match("growth", "/" + "r".repeat(RuleValidator.MAX_MATCH))), "match.route"),
                Arguments.of("route with a control character", growth.withMatch(new Match(null, "/login\u001b")), "match.route"),
                // login attempts must not run over: a log counts before it admits
                Arguments.of("sliding log counted after", Rule.slidingLog("q", "d", 5, 60).withMatch(LOGIN).withCounting(Counting.AFTER), "counting"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badRules")
    void refuses(String why, Object rule, String field) {
        RuleFields fields = rule instanceof Rule whole ? whole.fields() : (RuleFields) rule;
        assertThat(validator.validate(fields)).extracting(Violation::field).contains(field);
        if (rule instanceof Rule whole) {
            assertThat(validator.validate(whole)).as("a rule and its fields are judged alike").isEqualTo(validator.validate(fields));
        }
    }

    private static Rule rateAndBurst(Rule rule, int ratePerS, int burst) {
        return rule.withLimit(((Limit.TokenBucket) rule.limit()).withRateAndBurst(ratePerS, burst));
    }

    @Test
    void refusesTheFieldsOfAnotherAlgorithmNamingEach() {
        RuleFields bucketWithALimit = new RuleFields("r", "d", GROWTH, null, Algorithm.TOKEN_BUCKET, 10, null, 20, 5, 60, null, null, null, 1L);
        RuleFields logWithARate = new RuleFields("r", "d", LOGIN, null, Algorithm.SLIDING_LOG, 10, null, null, 5, 60, null, null, null, 1L);

        assertThat(validator.validate(bucketWithALimit)).extracting(Violation::field).containsExactly("limit", "window_s");
        assertThat(validator.validate(bucketWithALimit).get(0).message())
                .isEqualTo("is not a field of token_bucket, which takes rate_per_s, period_s and burst; leave it out, or name the algorithm it belongs to");
        assertThat(validator.validate(logWithARate)).singleElement().satisfies(v -> {
            assertThat(v.field()).isEqualTo("rate_per_s");
            assertThat(v.message()).startsWith("is not a field of sliding_log, which takes limit and window_s");
        });
        // a fixed window given a period: a token bucket's field, even where it defaults
        RuleFields windowWithAPeriod = new RuleFields("r", "d", GROWTH, null, Algorithm.FIXED_WINDOW, null, 1, null, 5, 60, null, null, null, 1L);
        assertThat(validator.validate(windowWithAPeriod)).extracting(Violation::field).containsExactly("period_s");
    }

    @Test
    void acceptsCountingAfterOnTokenBucketsAndFixedWindows() {
        assertThat(validator.validate(Rule.tokenBucket("ip", "edge", 50, 100).withMatch(GROWTH).withCounting(Counting.AFTER))).isEmpty();
        assertThat(validator.validate(Rule.fixedWindow("ip-daily", "edge", 10_000, 86_400).withMatch(GROWTH).withCounting(Counting.AFTER)))
                .isEmpty();
        assertThat(validator.validate(Rule.slidingLog("login", "auth", 5, 60).withMatch(LOGIN).withCounting(Counting.AFTER)))
                .singleElement().satisfies(v -> assertThat(v.message()).contains("sliding_log (login attempts) counts before it admits"));
    }

    @Test
    void refusesAnOverrideOfAnUnknownRule() {
        AccountOverride override = new AccountOverride("acct_1", "nope", 100, 200, null, "launch");

        assertThat(validator.validate(override, null)).extracting(Violation::field).containsExactly("rule_id");
    }

    @Test
    void refusesAnOverrideWithAZeroRateOrABurstBelowTheLargestCost() {
        Rule rule = growth().withMaxCost(10);

        assertThat(validator.validate(new AccountOverride("acct_1", rule.id(), 0, 200, null, "x"), rule))
                .extracting(Violation::field).containsExactly("rate_per_s");
        assertThat(validator.validate(new AccountOverride("acct_1", rule.id(), 100, 5, null, "x"), rule))
                .extracting(Violation::field).containsExactly("burst");
        assertThat(validator.validate(new AccountOverride("acct_1", rule.id(), 25_000, 50_000, null, "launch week"), rule)).isEmpty();
    }

    @Test
    void refusesAnOverrideOfACountingRule() {
        Rule rule = Rule.fixedWindow("free-daily", "d", 10_000, 86_400).withMatch(GROWTH);

        assertThat(validator.validate(new AccountOverride("acct_1", rule.id(), 10, 20, null, "x"), rule))
                .extracting(Violation::field).containsExactly("rule_id");
    }

    // added with rules-service
    @Test
    void refusesAnOverrideWithoutAnAccount() {
        assertThat(validator.validate(new AccountOverride(" ", "growth-global", 10, 20, null, "x"), growth()))
                .extracting(Violation::field).containsExactly("account_id");
    }

    @Test
    void acceptsSlidingLogsUpToTheirBounds() {
        Rule largest = Rule.slidingLog("q", "d", RuleValidator.MAX_SLIDING_LOG_LIMIT, 60).withMatch(LOGIN)
                .withMaxCost(RuleValidator.MAX_SLIDING_LOG_COST);

        assertThat(validator.validate(largest)).isEmpty();
        // the caps are the sliding log's: a fixed window keeps one counter whatever its limit or cost
        assertThat(validator.validate(Rule.fixedWindow("q", "d", 1_000_000, 86_400).withMatch(GROWTH).withMaxCost(1_000))).isEmpty();
    }

    @Test
    void saysWhyASlidingLogIsCapped() {
        assertThat(validator.validate(Rule.slidingLog("q", "d", 1_000_000, 60).withMatch(LOGIN)))
                .singleElement().satisfies(v -> assertThat(v.message()).startsWith("must be at most 10000 for sliding_log"));
        assertThat(validator.validate(Rule.slidingLog("q", "d", 1_000, 60).withMatch(LOGIN).withMaxCost(1_000)))
                .singleElement().satisfies(v -> assertThat(v.message()).contains("at most 100 for sliding_log").contains("one entry per unit of cost"));
    }

    @Test
    void acceptsMatchesAndDomainsAtTheirLengthCaps() {
        Rule rule = Rule.tokenBucket("r", "d".repeat(RuleValidator.MAX_DOMAIN), 1, 1)
                .withMatch(new Match("p".repeat(RuleValidator.MAX_MATCH), "/名前".repeat(RuleValidator.MAX_MATCH / 3)));

        assertThat(validator.validate(rule)).isEmpty();
    }

    @Test
    void refusesAnOverrideAccountThatNoCheckKeyCouldEqual() {
        Rule rule = growth();

        assertThat(validator.validate(new AccountOverride("a".repeat(256), rule.id(), 10, 20, null, "x"), rule)).isEmpty();
        assertThat(validator.validate(new AccountOverride("a".repeat(257), rule.id(), 10, 20, null, "x"), rule))
                .extracting(Violation::field).containsExactly("account_id");
        // 86 three-byte characters are 258 bytes
        assertThat(validator.validate(new AccountOverride("名".repeat(86), rule.id(), 10, 20, null, "x"), rule))
                .extracting(Violation::field).containsExactly("account_id");
        assertThat(validator.validate(new AccountOverride("acct\n1", rule.id(), 10, 20, null, "x"), rule))
                .extracting(Violation::field).containsExactly("account_id");
        assertThat(validator.validate(new AccountOverride("acct\uDC00", rule.id(), 10, 20, null, "x"), rule))
                .extracting(Violation::field).containsExactly("account_id");
    }

    @Test
    void quotesAnUnknownRuleIdOnlyWhenItCouldBeOne() {
        assertThat(validator.validate(new AccountOverride("a", "nope", 10, 20, null, "x"), null))
                .singleElement().satisfies(v -> assertThat(v.message()).isEqualTo("names no rule: nope"));
        assertThat(validator.validate(new AccountOverride("a", "x".repeat(10_000), 10, 20, null, "x"), null))
                .singleElement().satisfies(v -> assertThat(v.message()).isEqualTo("names no rule"));
    }

    @Test
    void capsAReasonAndAllowsLineBreaksInIt() {
        assertThat(validator.validateReason(null)).isEmpty();
        assertThat(validator.validateReason("launch week\n\tapproved by ops")).isEmpty();
        assertThat(validator.validateReason("r".repeat(RuleValidator.MAX_REASON))).isEmpty();
        assertThat(validator.validateReason("r".repeat(RuleValidator.MAX_REASON + 1))).extracting(Violation::field).containsExactly("reason");
        assertThat(validator.validateReason("bell\u0007")).extracting(Violation::field).containsExactly("reason");
        assertThat(validator.validateReason("nul\u0000")).extracting(Violation::field).containsExactly("reason");
        assertThat(validator.validateReason("half \uD83D")).extracting(Violation::field).containsExactly("reason");
    }
}
