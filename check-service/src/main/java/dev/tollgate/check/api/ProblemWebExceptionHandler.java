package dev.tollgate.check.api;

import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.stereotype.Component;
import org.springframework.web.ErrorResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

/**
 * Problem details for errors that never reach a controller (no such path, or a failure in a filter),
 * which {@link ProblemHandler} cannot see. Runs before Spring Boot's default error page handler.
 */
@Component
@Order(-2)
class ProblemWebExceptionHandler implements WebExceptionHandler {

    private final JsonMapper json;

    ProblemWebExceptionHandler(JsonMapper json) {
        this.json = json;
    }

    @Override
    public Mono<Void> handle(ServerWebExchange exchange, Throwable error) {
        ServerHttpResponse response = exchange.getResponse();
        if (response.isCommitted()) {
            return Mono.error(error);
        }
        HttpStatusCode status = error instanceof ErrorResponse known ? known.getStatusCode() : HttpStatus.INTERNAL_SERVER_ERROR;
        ProblemDetail problem = error instanceof ErrorResponse known
                ? known.getBody()
                : ProblemDetail.forStatusAndDetail(status, "An unexpected error occurred.");
        ProblemHandler.withCode(problem, status.value());
        problem.setInstance(exchange.getRequest().getURI());
        response.setStatusCode(status);
        response.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        byte[] body = json.writeValueAsBytes(problem);
        if (status.value() == HttpStatus.CONTENT_TOO_LARGE.value()) {
            RequestBodies.closeAfterAnswer(exchange);
        }
        // outside a controller nothing read the body: read it to its end first (see RequestBodies)
        return RequestBodies.drain(exchange).then(Mono.defer(() -> response.writeWith(Mono.just(response.bufferFactory().wrap(body)))));
    }
}
