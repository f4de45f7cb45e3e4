package dev.tollgate.check.api;

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
import org.springframework.web.util.DisconnectedClientHelper;
import reactor.core.publisher.Mono;


/**
 * Maps every failure of a check that reached WebFlux to RFC 9457 problem details with a {@code code},
 * worded by {@link CheckProblems}. Nothing a caller sends ends in a 500.
 */
@RestControllerAdvice
class ProblemHandler extends ResponseEntityExceptionHandler {

    /** An outcome of the engine that is no verdict: answered as {@link CheckProblems} worded it. */
    @ExceptionHandler(ProblemAnswer.class)
    ResponseEntity<ProblemDetail> notAVerdict(ProblemAnswer answer) {
        return ResponseEntity.status(answer.problem().getStatus()).body(answer.problem());
    }

    /** What failed around the engine (Spring's own web errors have their handlers below). */
    @ExceptionHandler(Exception.class)
    ResponseEntity<ProblemDetail> checkFailed(Exception e) {
        ProblemDetail problem = CheckProblems.of(e);
        return ResponseEntity.status(problem.getStatus()).body(problem);
    }

    @Override
    protected Mono<ResponseEntity<Object>> handleServerWebInputException(ServerWebInputException ex, HttpHeaders headers,
                                                                        HttpStatusCode status, ServerWebExchange exchange) {
        if (hasCause(ex, DataBufferLimitException.class)) {
            // the rest of the body is still on its way and nobody will read it
            RequestBodies.closeAfterAnswer(exchange);
            return Mono.just(ResponseEntity.status(HttpStatus.CONTENT_TOO_LARGE).body(CheckProblems.tooLarge()));
        }
        if (CheckProblems.timedOut(ex)) {
            // the rest of the body may still come, and nobody will read it
            RequestBodies.closeAfterAnswer(exchange);
            return Mono.just(ResponseEntity.status(HttpStatus.REQUEST_TIMEOUT).body(CheckProblems.requestTimeout()));
        }
        ProblemDetail problem = DisconnectedClientHelper.isClientDisconnectedException(ex) ? CheckProblems.clientClosed()
                : CheckProblems.unreadable(ex);
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
            problem.setProperty("code", CheckProblems.codeFor(status));
        }
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
