package dev.tollgate.check.api;

import org.springframework.http.ProblemDetail;

/**
 * Carries an engine outcome that is no verdict (a fail-closed rule's store failure, no rules, bad input) from
 * {@link CheckController} to {@link ProblemHandler}, as WebFlux hands a problem to its handler: an expected
 * answer, so without a stack trace.
 */
final class ProblemAnswer extends RuntimeException {

    private final transient ProblemDetail problem;

    ProblemAnswer(ProblemDetail problem) {
        super(problem.getDetail(), null, false, false);
        this.problem = problem;
    }

    ProblemDetail problem() {
        return problem;
    }
}
