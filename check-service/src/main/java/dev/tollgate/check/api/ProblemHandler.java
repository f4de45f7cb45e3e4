package dev.tollgate.check.api;

import dev.tollgate.common.check.InvalidCheckRequestException;
import dev.tollgate.limiter.RulesNotLoadedException;
import dev.tollgate.store.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.ErrorResponse;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.reactive.result.method.annotation.ResponseEntityExceptionHandler;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebInputException;
import reactor.core.publisher.Mono;

import java.util.List;
import java.util.Map;

/**
 * Maps every failure to RFC 9457 problem details with a {@code code}. Bad input is the caller's and
 * says what to change; a store failure says which (504 {@code store_timeout}, 503
 * {@code store_unavailable}) so the gateway can apply the rule's fail mode. Nothing a caller sends
 * ends in a 500.
 */
@RestControllerAdvice
class ProblemHandler extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ProblemHandler.class);

    @ExceptionHandler(InvalidCheckRequestException.class)
    ResponseEntity<ProblemDetail> invalidRequest(InvalidCheckRequestException e) {
        ProblemDetail problem = problem(HttpStatus.UNPROCESSABLE_CONTENT, ProblemCodes.INVALID_REQUEST, e.getMessage());
        List<Map<String, String>> errors = e.problems().stream()
                .map(p -> Map.of("field", p.field(), "message", p.message()))
                .toList();
        problem.setProperty("errors", errors);
        return ResponseEntity.status(problem.getStatus()).body(problem);
    }

    @ExceptionHandler(StoreException.class)
    ResponseEntity<ProblemDetail> storeFailure(StoreException e) {
        boolean timeout = e.kind() == StoreException.Kind.TIMEOUT;
        ProblemDetail problem = timeout
                ? problem(HttpStatus.GATEWAY_TIMEOUT, ProblemCodes.STORE_TIMEOUT,
                        "The counter shard did not answer in time; a fail-closed rule denies the request.")
                : problem(HttpStatus.SERVICE_UNAVAILABLE, ProblemCodes.STORE_UNAVAILABLE,
                        "The counter shard cannot be reached; a fail-closed rule denies the request.");
        return ResponseEntity.status(problem.getStatus()).body(problem);
    }

    @ExceptionHandler(RulesNotLoadedException.class)
    ResponseEntity<ProblemDetail> rulesNotLoaded(RulesNotLoadedException e) {
        ProblemDetail problem = problem(HttpStatus.SERVICE_UNAVAILABLE, ProblemCodes.RULES_UNAVAILABLE,
                "This pod holds no rules yet, so it cannot tell which rules fail closed; apply your own failure mode.");
        return ResponseEntity.status(problem.getStatus()).body(problem);
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<ProblemDetail> unexpected(Exception e) {
        log.error("unexpected failure of a check", e);
        ProblemDetail problem = problem(HttpStatus.INTERNAL_SERVER_ERROR, ProblemCodes.INTERNAL_ERROR, "An unexpected error occurred.");
        return ResponseEntity.status(problem.getStatus()).body(problem);
    }

    @Override
    protected Mono<ResponseEntity<Object>> handleServerWebInputException(ServerWebInputException ex, HttpHeaders headers,
                                                                        HttpStatusCode status, ServerWebExchange exchange) {
        if (hasCause(ex, DataBufferLimitException.class)) {
            // the rest of the body is still on its way and nobody will read it
            RequestBodies.closeAfterAnswer(exchange);
            ProblemDetail problem = problem(HttpStatus.CONTENT_TOO_LARGE, ProblemCodes.PAYLOAD_TOO_LARGE,
                    "The request body is larger than the service accepts.");
            return Mono.just(ResponseEntity.status(problem.getStatus()).body(problem));
        }
        UnreadableBody unreadable = UnreadableBody.of(ex);
        String where = unreadable.field().isEmpty() ? "" : " (at " + unreadable.field() + ")";
        ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, ProblemCodes.BAD_REQUEST,
                "The request body is not a valid check request: " + unreadable.message() + where + ".");
        problem.setProperty("errors", List.of(Map.of("field", unreadable.field(), "message", unreadable.message())));
        return Mono.just(ResponseEntity.status(problem.getStatus()).body(problem));
    }

    /** Spring's own web errors (405, 413, 415, ...) get a code too. */
    @Override
    protected Mono<ResponseEntity<Object>> handleExceptionInternal(Exception ex, Object body, HttpHeaders headers,
                                                                  HttpStatusCode status, ServerWebExchange exchange) {
        Object problem = body == null && ex instanceof ErrorResponse error ? error.getBody() : body;
        if (problem instanceof ProblemDetail detail) {
            withCode(detail, status.value());
        }
        if (status.value() == HttpStatus.CONTENT_TOO_LARGE.value()) {
            // the rest of the body is still on its way and nobody will read it
            RequestBodies.closeAfterAnswer(exchange);
            return super.handleExceptionInternal(ex, problem, headers, status, exchange);
        }
        // the others are answered before any body was read (no handler, wrong method or media type)
        return RequestBodies.drain(exchange).then(super.handleExceptionInternal(ex, problem, headers, status, exchange));
    }

    static ProblemDetail withCode(ProblemDetail problem, int status) {
        if (problem.getProperties() == null || !problem.getProperties().containsKey("code")) {
            problem.setProperty("code", ProblemCodes.forStatus(status));
        }
        return problem;
    }

    private static ProblemDetail problem(HttpStatus status, String code, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setProperty("code", code);
        return problem;
    }

    private static boolean hasCause(Throwable error, Class<? extends Throwable> type) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return true;
            }
        }
        return false;
    }
}
