package dev.tollgate.common.rule;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

class RuleTest {

    @ParameterizedTest(name = "{0} {1}: split across regions {2}")
    @CsvSource({
            "API_KEY, TOKEN_BUCKET, true",
            "API_KEY, FIXED_WINDOW, true",
            "USER,    TOKEN_BUCKET, true",
            "USER,    FIXED_WINDOW, true",
            // a caller chooses its address: a spray of them must not reach the rebalancer
            "IP,      TOKEN_BUCKET, false",
            "IP,      FIXED_WINDOW, false",
            // login attempts, keyed by the address or username the caller types
            "IP,      SLIDING_LOG,  false",
            "USER,    SLIDING_LOG,  false",
            "API_KEY, SLIDING_LOG,  false"})
    void splitsTheLimitsOfAccountsAcrossRegionsAndNeverThoseOfKeysACallerChooses(Identity identity, Algorithm algorithm, boolean split) {
        Limit limit = switch (algorithm) {
            case TOKEN_BUCKET -> Limit.TokenBucket.perSecond(100, 200);
            case SLIDING_LOG -> new Limit.SlidingLog(5, 60);
            case FIXED_WINDOW -> new Limit.FixedWindow(10_000, 86_400);
        };
        Rule rule = new Rule("r", "d", new Match(null, "/login"), identity, limit, null, null, 1, 1);

        assertThat(rule.regionBudgeted()).isEqualTo(split);
    }
}
