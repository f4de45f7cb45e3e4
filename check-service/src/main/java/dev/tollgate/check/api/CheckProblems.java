package dev.tollgate.check.api;

import dev.tollgate.common.check.CheckProblem;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.ProblemCodes;
import dev.tollgate.limiter.Outcome;
import io.netty.handler.timeout.ReadTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.web.util.DisconnectedClientHelper;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * What a check answers over HTTP, decided once for both ways a check arrives: WebFlux's controller
 * ({@link CheckController}, {@link ProblemHandler}) and the check's own route ({@link CheckRoute}). The engine's
 * outcome is a verdict (200) or a problem: bad input is the caller's and says what to change; a fail-closed
 * rule's store failure says which (504 {@code store_timeout}, 503 {@code store_unavailable}), so the gateway
 * denies whatever its own fail mode; a pod without rules says so (503 {@code rules_unavailable}).
 */
final class CheckProblems {

    private static final Logger log = LoggerFactory.getLogger(CheckProblems.class);
    /** nginx's status for a request whose client closed the connection first; no answer carries it. */
    private static final int CLIENT_CLOSED_REQUEST = 499;
    /** Never received by anyone (the client is gone), so not among the API's documented {@link ProblemCodes}. */
    private static final String CLIENT_CLOSED_CODE = "client_closed_request";

    /** Reactor Netty's, not public: known by its name. */
    private static final String REQUEST_TIMEOUT = "reactor.netty.http.server.RequestTimeoutException";

    private CheckProblems() {
    }

    /** The engine's outcome as HTTP answers it: the verdict, or the problem. */
    static <T> T answer(Outcome outcome, Function<CheckResponse, T> verdict, Function<ProblemDetail, T> problem) {
        return outcome.match(new Outcome.Cases<>() {
            @Override
            public T answered(CheckResponse response) {
                return verdict.apply(response);
            }

            @Override
            public T failedClosed(Outcome.FailedClosed failure) {
                return problem.apply(storeFailure(failure));
            }

            @Override
            public T noRules() {
                return problem.apply(rulesNotLoaded());
            }

            @Override
            public T invalid(List<CheckProblem> problems) {
                return problem.apply(invalidRequest(problems));
            }
        });
    }

    /** A failure of the exchange itself, not an outcome of the engine; anything unforeseen is logged and answered 500. */
    static ProblemDetail of(Throwable failure) {
        if (DisconnectedClientHelper.isClientDisconnectedException(failure)) {
            return clientClosed();
        }
        if (timedOut(failure)) {
            return requestTimeout();
        }
        return unexpected(failure);
    }

    /** Whether reading the request's body outlasted {@code tollgate.http.request-timeout} (or a read timeout of Netty's). */
    static boolean timedOut(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof ReadTimeoutException || REQUEST_TIMEOUT.equals(cause.getClass().getName())) {
                return true;
            }
        }
        return false;
    }

    /** The body did not arrive in time; the rest of it may still come, so the answer closes the connection. */
    static ProblemDetail requestTimeout() {
        return problem(HttpStatus.REQUEST_TIMEOUT, ProblemCodes.REQUEST_TIMEOUT,
                "The request's body did not arrive in time; send it whole, at once.");
    }

    static ProblemDetail invalidRequest(List<CheckProblem> problems) {
        ProblemDetail problem = problem(HttpStatus.UNPROCESSABLE_CONTENT, ProblemCodes.INVALID_REQUEST,
                problems.get(0).describe());
        problem.setProperty("errors", problems.stream().map(CheckProblems::error).toList());
        return problem;
    }

    /** One item of {@code errors}; a problem about several entries (costs that add up) names them all. */
    private static Map<String, Object> error(CheckProblem problem) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("field", problem.path());
        error.put("message", problem.message());
        if (problem.entries().size() > 1) {
            error.put("entries", problem.entries());
        }
        return error;
    }

    /** The rules that failed closed are named, so whoever reads the answer knows which limit denied and why. */
    static ProblemDetail storeFailure(Outcome.FailedClosed failure) {
        ProblemDetail problem = failure.cause() == Outcome.FailedClosed.Cause.TIMEOUT
                ? problem(HttpStatus.GATEWAY_TIMEOUT, failure.cause().code(),
                        "The counter shard did not answer in time; a fail-closed rule denies the request.")
                : problem(HttpStatus.SERVICE_UNAVAILABLE, failure.cause().code(),
                        "The counter shard cannot be reached; a fail-closed rule denies the request.");
        problem.setProperty("rules", failure.rules().stream().distinct().toList());
        return problem;
    }

    static ProblemDetail rulesNotLoaded() {
        return problem(HttpStatus.SERVICE_UNAVAILABLE, ProblemCodes.RULES_UNAVAILABLE,
                "This pod holds no rules yet, so it cannot tell which rules fail closed; apply your own failure mode.");
    }

    /**
     * The client went away before its answer (closed or reset mid-body): nothing can reach it and nothing failed
     * here. Counted as nginx counts it, 499, not as a 500 logged at ERROR, which any client could raise at will
     * and which pages on the 5xx alert.
     */
    static ProblemDetail clientClosed() {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatusCode.valueOf(CLIENT_CLOSED_REQUEST),
                "The client closed the connection before its answer.");
        problem.setProperty("code", CLIENT_CLOSED_CODE);
        return problem;
    }

    static ProblemDetail unexpected(Throwable e) {
        log.error("unexpected failure of a check", e);
        return problem(HttpStatus.INTERNAL_SERVER_ERROR, ProblemCodes.INTERNAL_ERROR, "An unexpected error occurred.");
    }

    /** A body that is no check request (not JSON, or JSON of another shape), with the field where reading stopped. */
    static ProblemDetail unreadable(Throwable e) {
        UnreadableBody unreadable = UnreadableBody.of(e);
        String where = unreadable.field().isEmpty() ? "" : " (at " + unreadable.field() + ")";
        ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, ProblemCodes.BAD_REQUEST,
                "The request body is not a valid check request: " + unreadable.message() + where + ".");
        problem.setProperty("errors", List.of(Map.of("field", unreadable.field(), "message", unreadable.message())));
        return problem;
    }

    static ProblemDetail tooLarge() {
        return problem(HttpStatus.CONTENT_TOO_LARGE, ProblemCodes.PAYLOAD_TOO_LARGE, "The request body is larger than the service accepts.");
    }

    /** The code of an error that Spring or Netty answered by its status alone. */
    static String codeFor(int status) {
        return switch (status) {
            case 400 -> ProblemCodes.BAD_REQUEST;
            case 401 -> ProblemCodes.UNAUTHORIZED;
            case 404 -> ProblemCodes.NOT_FOUND;
            case 405 -> ProblemCodes.METHOD_NOT_ALLOWED;
            case 406 -> ProblemCodes.NOT_ACCEPTABLE;
            case 408 -> ProblemCodes.REQUEST_TIMEOUT;
            case 413 -> ProblemCodes.PAYLOAD_TOO_LARGE;
            case 414 -> ProblemCodes.URI_TOO_LONG;
            case 415 -> ProblemCodes.UNSUPPORTED_MEDIA_TYPE;
            case 422 -> ProblemCodes.INVALID_REQUEST;
            case 431 -> ProblemCodes.HEADERS_TOO_LARGE;
            case 503 -> ProblemCodes.STORE_UNAVAILABLE;
            case 504 -> ProblemCodes.STORE_TIMEOUT;
            default -> status >= 500 ? ProblemCodes.INTERNAL_ERROR : ProblemCodes.BAD_REQUEST;
        };
    }

    static ProblemDetail problem(HttpStatus status, String code, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setProperty("code", code);
        return problem;
    }
}
