package dev.tollgate.check.forwardauth;

import dev.tollgate.common.check.CheckProblem;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.ProblemCodes;
import dev.tollgate.common.check.Verdict;
import dev.tollgate.limiter.Outcome;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the forward-auth check answers a gateway, decided here for every outcome. A gateway knows two answers, pass
 * (2xx) and deny (the deny status), and treats anything else as its own error, which most of them, nginx's recipe
 * included, let through. So every outcome that must not pass is a deny:
 * <ul>
 *   <li>allowed: 200, no body, the RateLimit headers for the gateway to copy onto its response;</li>
 *   <li>denied: the deny status with the RateLimit headers and {@code Retry-After}, and a problem {@code rate_limited};</li>
 *   <li>a fail-closed rule whose shard cannot answer (login during a store outage): a deny, with
 *       {@code x-tollgate-degraded: store_timeout|store_unavailable} and {@code Retry-After: 1} (the breaker's
 *       second); a fail-open rule's fallback verdict is an ordinary allow or deny;</li>
 *   <li>a request that cannot be checked (only configuration causes one now: no domain, a bad cost header): a deny
 *       with the problem naming what to change, never a pass;</li>
 *   <li>no rules yet: 503 {@code rules_unavailable}, the one answer left to the gateway's failure mode (the pod
 *       cannot tell login's fail-closed rule from none, and it is not ready, so a load balancer moves on).</li>
 * </ul>
 *
 * @param outcome what is counted: {@code allow}, {@code deny}, {@code failed_closed}, {@code invalid}, {@code no_rules}
 * @param problem the body, for every answer but an allow
 */
record ForwardAuthAnswer(String outcome, int status, Map<String, String> headers, ProblemDetail problem) {

    static final String DEGRADED = "x-tollgate-degraded";
    static final String RATE_LIMITED_TITLE = "Too Many Requests";

    static ForwardAuthAnswer of(Outcome outcome, int denyStatus) {
        return outcome.match(new Outcome.Cases<>() {
            @Override
            public ForwardAuthAnswer answered(CheckResponse response) {
                if (response.verdict() == Verdict.ALLOW) {
                    return new ForwardAuthAnswer("allow", HttpStatus.OK.value(), response.headers(), null);
                }
                return new ForwardAuthAnswer("deny", denyStatus, response.headers(),
                        problem(denyStatus, ProblemCodes.RATE_LIMITED, "The request is over a rate limit; RateLimit-Policy names it."));
            }

            @Override
            public ForwardAuthAnswer failedClosed(Outcome.FailedClosed failure) {
                String code = failure.cause().code();
                Map<String, String> headers = new LinkedHashMap<>();
                headers.put(DEGRADED, code);
                headers.put("Retry-After", "1");
                ProblemDetail problem = problem(denyStatus, code,
                        "A fail-closed rule's counter shard cannot answer; the request is denied.");
                problem.setProperty("rules", failure.rules().stream().distinct().toList());
                return new ForwardAuthAnswer("failed_closed", denyStatus, headers, problem);
            }

            @Override
            public ForwardAuthAnswer noRules() {
                return new ForwardAuthAnswer("no_rules", HttpStatus.SERVICE_UNAVAILABLE.value(), Map.of(),
                        problem(HttpStatus.SERVICE_UNAVAILABLE.value(), ProblemCodes.RULES_UNAVAILABLE,
                                "This pod holds no rules yet; apply your own failure mode."));
            }

            @Override
            public ForwardAuthAnswer invalid(List<CheckProblem> problems) {
                return invalidRequest(problems, denyStatus);
            }
        });
    }

    /** A check that cannot be made is denied: the gateway's configuration sends it, and a pass would lift every limit. */
    static ForwardAuthAnswer invalidRequest(List<CheckProblem> problems, int denyStatus) {
        ProblemDetail problem = problem(denyStatus, ProblemCodes.INVALID_REQUEST, problems.get(0).describe());
        problem.setTitle("Invalid forward-auth request");
        problem.setProperty("errors", problems.stream().map(p -> Map.of("field", p.path(), "message", p.message())).toList());
        return new ForwardAuthAnswer("invalid", denyStatus, Map.of(), problem);
    }

    private static ProblemDetail problem(int status, String code, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatusCode.valueOf(status), detail);
        if (ProblemCodes.RATE_LIMITED.equals(code) || ProblemCodes.failedClosed(code)) {
            // a 403 titled Forbidden would tell the client it lacks a permission, not that it should wait
            problem.setTitle(RATE_LIMITED_TITLE);
        }
        problem.setProperty("code", code);
        return problem;
    }
}
