package dev.tollgate.check.envoy;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.RateLimit;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class EnvoyAnswersTest {

    @Test
    void aWindowThatIsAUnitIsSaidInIt() {
        assertThat(limit(100, 1)).isEqualTo("100/SECOND");
        assertThat(limit(120, 60)).isEqualTo("120/MINUTE");
        assertThat(limit(5000, 3600)).isEqualTo("5000/HOUR");
        assertThat(limit(10000, 86400)).isEqualTo("10000/DAY");
        assertThat(limit(3, 604800)).isEqualTo("3/WEEK");
    }

    @Test
    void anotherWindowIsSaidExactlyInTheSmallestUnitThatCan() {
        assertThat(limit(10, 300)).isEqualTo("2/MINUTE");
        assertThat(limit(7, 10)).isEqualTo("42/MINUTE");
        assertThat(limit(1, 120)).isEqualTo("30/HOUR");
        assertThat(limit(100, 10)).isEqualTo("10/SECOND");
    }

    @Test
    void aWindowNoUnitStatesExactlyIsRoundedDownPerWeek() {
        assertThat(limit(1, 1_209_601)).isEqualTo("0/WEEK");
        assertThat(limit(100, 1_209_600)).isEqualTo("50/WEEK");
    }

    @Test
    void theRuleNamesTheLimit() {
        assertThat(EnvoyAnswers.currentLimit("growth-global", 100, 1).getName()).isEqualTo("growth-global");
    }

    private static String limit(int quota, int windowS) {
        RateLimit limit = EnvoyAnswers.currentLimit("r", quota, windowS);
        return limit.getRequestsPerUnit() + "/" + limit.getUnit();
    }
}
