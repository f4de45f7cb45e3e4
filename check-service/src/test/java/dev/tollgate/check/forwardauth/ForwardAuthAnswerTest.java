package dev.tollgate.check.forwardauth;

import dev.tollgate.common.check.CheckProblem;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.Verdict;
import dev.tollgate.limiter.Outcome;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Every outcome that must not pass is a deny at the deny status; only a pod without rules leaves it to the gateway. */
class ForwardAuthAnswerTest {

    @Test
    void anAllowIs200WithTheHeadersAndNoBody() {
        ForwardAuthAnswer answer = ForwardAuthAnswer.of(new Outcome.Answered(new CheckResponse(Verdict.ALLOW, List.of(),
                Map.of("RateLimit", "\"free-global\";r=19;t=1"))), 403);

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.headers()).containsKey("RateLimit");
        assertThat(answer.problem()).isNull();
    }

    @Test
    void aDenyIsTheDenyStatusWithRetryAfter() {
        ForwardAuthAnswer answer = ForwardAuthAnswer.of(new Outcome.Answered(new CheckResponse(Verdict.DENY, List.of(),
                Map.of("Retry-After", "1"))), 403);

        assertThat(answer.status()).isEqualTo(403);
        assertThat(answer.headers()).containsEntry("Retry-After", "1");
        assertThat(answer.problem().getProperties()).containsEntry("code", "rate_limited");
        assertThat(answer.problem().getTitle()).isEqualTo("Too Many Requests");
    }

    @Test
    void aFailClosedRuleDeniesAndSaysTheStoreIsDegraded() {
        ForwardAuthAnswer answer = ForwardAuthAnswer.of(new Outcome.FailedClosed(Outcome.FailedClosed.Cause.UNAVAILABLE,
                "breaker_open", List.of(0), List.of("login-ip")), 429);

        assertThat(answer.status()).isEqualTo(429);
        assertThat(answer.headers()).containsEntry("x-tollgate-degraded", "store_unavailable").containsEntry("Retry-After", "1");
        assertThat(answer.outcome()).isEqualTo("failed_closed");
    }

    @Test
    void anInvalidCheckIsADenyNeverAPass() {
        ForwardAuthAnswer answer = ForwardAuthAnswer.of(new Outcome.Invalid(List.of(CheckProblem.ofRequest("domain", "is required"))), 403);

        assertThat(answer.status()).isEqualTo(403);
        assertThat(answer.problem().getProperties()).containsEntry("code", "invalid_request");
    }

    @Test
    void noRulesIs503ForTheGatewaysFailureMode() {
        assertThat(ForwardAuthAnswer.of(Outcome.NoRules.INSTANCE, 403).status()).isEqualTo(503);
    }

    @Test
    void aDenyStatusWithoutAReasonPhraseStillAnswers() {
        assertThat(ForwardAuthAnswer.of(Outcome.NoRules.INSTANCE, 499).status()).isEqualTo(503);
        assertThat(ForwardAuthAnswer.of(new Outcome.Answered(new CheckResponse(Verdict.DENY, List.of(), Map.of())), 499).status()).isEqualTo(499);
    }
}
