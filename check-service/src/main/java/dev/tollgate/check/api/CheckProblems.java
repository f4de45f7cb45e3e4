package dev.tollgate.check.api;

import dev.tollgate.common.check.InvalidCheckRequestException;
import dev.tollgate.limiter.RulesNotLoadedException;
import dev.tollgate.store.StoreException;
import io.netty.handler.timeout.ReadTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.web.util.DisconnectedClientHelper;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;

/**
 * The problem details of a check that failed, worded once for both ways a check arrives: WebFlux's
 * controller ({@link ProblemHandler}) and the check's own route ({@link CheckRoute}). Bad input is the
 * caller's and says what to change; a store failure says which (504 {@code store_timeout}, 503
 * {@code store_unavailable}) so the gateway can apply the rule's fail mode.
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

    /** What the engine's failure means to the caller; anything unforeseen is logged and answered 500. */
    static ProblemDetail of(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (cause instanceof InvalidCheckRequestException invalid) {
            return invalidRequest(invalid);
        }
        if (cause instanceof StoreException store) {
            return storeFailure(store);
        }
        if (cause instanceof RulesNotLoadedException) {
            return rulesNotLoaded();
        }
        if (DisconnectedClientHelper.isClientDisconnectedException(cause)) {
            return clientClosed();
        }
        if (timedOut(cause)) {
            return requestTimeout();
        }
        return unexpected(cause);
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

    static ProblemDetail invalidRequest(InvalidCheckRequestException e) {
        ProblemDetail problem = problem(HttpStatus.UNPROCESSABLE_CONTENT, ProblemCodes.INVALID_REQUEST, e.getMessage());
        problem.setProperty("errors", e.problems().stream()
                .map(p -> Map.of("field", p.field(), "message", p.message()))
                .toList());
        return problem;
    }

    static ProblemDetail storeFailure(StoreException e) {
        return e.kind() == StoreException.Kind.TIMEOUT
                ? problem(HttpStatus.GATEWAY_TIMEOUT, ProblemCodes.STORE_TIMEOUT,
                        "The counter shard did not answer in time; a fail-closed rule denies the request.")
                : problem(HttpStatus.SERVICE_UNAVAILABLE, ProblemCodes.STORE_UNAVAILABLE,
                        "The counter shard cannot be reached; a fail-closed rule denies the request.");
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

    static ProblemDetail problem(HttpStatus status, String code, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setProperty("code", code);
        return problem;
    }
}
