package dev.tollgate.rules.problem;

import dev.tollgate.common.validation.Violation;
import org.apache.tomcat.util.http.InvalidParameterException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.transaction.TransactionException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

import java.util.List;
import java.util.Map;

/**
 * Maps every failure to problem details with a {@code code}. Bad input says what to change; a rules
 * store outage is a 503 the caller may retry, never a 500, and since every write is one transaction
 * it has left nothing behind.
 */
@RestControllerAdvice
class ProblemHandler extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ProblemHandler.class);

    @ExceptionHandler(InvalidRuleException.class)
    ResponseEntity<ProblemDetail> invalidRule(InvalidRuleException e) {
        ProblemDetail problem = problem(HttpStatus.UNPROCESSABLE_CONTENT, ProblemCodes.INVALID_RULE,
                "The rule was refused before anything was stored: " + e.getMessage());
        List<Map<String, String>> errors = e.violations().stream()
                .map(v -> Map.of("field", v.field(), "message", v.message()))
                .toList();
        problem.setProperty("errors", errors);
        return respond(problem);
    }

    @ExceptionHandler(InvalidDescriptorsException.class)
    ResponseEntity<ProblemDetail> invalidDescriptors(InvalidDescriptorsException e) {
        ProblemDetail problem = problem(HttpStatus.UNPROCESSABLE_CONTENT, ProblemCodes.INVALID_DESCRIPTORS,
                "The descriptor mappings were refused before anything was stored: " + e.getMessage());
        problem.setProperty("errors", e.violations().stream()
                .map(v -> Map.of("field", v.field(), "message", v.message()))
                .toList());
        return respond(problem);
    }

    @ExceptionHandler(InvalidEnvoyConfigException.class)
    ResponseEntity<ProblemDetail> invalidEnvoyConfig(InvalidEnvoyConfigException e) {
        ProblemDetail problem = problem(HttpStatus.UNPROCESSABLE_CONTENT, ProblemCodes.INVALID_ENVOY_CONFIG,
                "The envoyproxy/ratelimit configuration was refused whole before anything was stored: " + e.getMessage());
        problem.setProperty("errors", fields(e.violations()));
        return respond(problem);
    }

    @ExceptionHandler(InvalidConfigException.class)
    ResponseEntity<ProblemDetail> invalidConfig(InvalidConfigException e) {
        ProblemDetail problem = problem(HttpStatus.UNPROCESSABLE_CONTENT, ProblemCodes.INVALID_CONFIG,
                "The configuration was refused whole before anything was stored ("
                        + (e.violations().size() == 1 ? "1 problem" : e.violations().size() + " problems") + "): " + e.getMessage());
        problem.setProperty("errors", fields(e.violations()));
        return respond(problem);
    }

    @ExceptionHandler(ImportConflictException.class)
    ResponseEntity<ProblemDetail> importConflict(ImportConflictException e) {
        ProblemDetail problem = problem(HttpStatus.CONFLICT, ProblemCodes.IMPORT_CONFLICT,
                "The import was refused before anything was stored: rules of its ids are stored with other limits. " + e.getMessage());
        problem.setProperty("errors", fields(e.conflicts()));
        return respond(problem);
    }

    @ExceptionHandler(NotFoundException.class)
    ResponseEntity<ProblemDetail> notFound(NotFoundException e) {
        return respond(problem(HttpStatus.NOT_FOUND, ProblemCodes.NOT_FOUND, e.getMessage()));
    }

    @ExceptionHandler(NoCanaryException.class)
    ResponseEntity<ProblemDetail> noCanary(NoCanaryException e) {
        return respond(problem(HttpStatus.NOT_FOUND, ProblemCodes.NO_CANARY, e.getMessage()));
    }

    @ExceptionHandler(CanaryPendingException.class)
    ResponseEntity<ProblemDetail> canaryPending(CanaryPendingException e) {
        return respond(problem(HttpStatus.CONFLICT, ProblemCodes.CANARY_PENDING, e.getMessage()));
    }

    @ExceptionHandler(PreconditionRequiredException.class)
    ResponseEntity<ProblemDetail> preconditionRequired(PreconditionRequiredException e) {
        return respond(problem(HttpStatus.PRECONDITION_REQUIRED, ProblemCodes.PRECONDITION_REQUIRED, e.getMessage()));
    }

    @ExceptionHandler(VersionConflictException.class)
    ResponseEntity<ProblemDetail> versionConflict(VersionConflictException e) {
        ProblemDetail problem = problem(HttpStatus.CONFLICT, ProblemCodes.VERSION_CONFLICT, e.getMessage());
        if (e.currentVersion() != null) {
            problem.setProperty("current_version", e.currentVersion());
        }
        return respond(problem);
    }

    @ExceptionHandler(BadRequestException.class)
    ResponseEntity<ProblemDetail> badRequest(BadRequestException e) {
        return respond(problem(HttpStatus.BAD_REQUEST, ProblemCodes.BAD_REQUEST, e.getMessage()));
    }

    @ExceptionHandler(CounterStoreUnavailableException.class)
    ResponseEntity<ProblemDetail> counterStoreUnavailable(CounterStoreUnavailableException e) {
        ProblemDetail problem = problem(HttpStatus.SERVICE_UNAVAILABLE, ProblemCodes.STORE_UNAVAILABLE, e.getMessage());
        problem.setProperty("store", "counters");
        return respond(problem);
    }

    @ExceptionHandler(AnswerTooLargeException.class)
    ResponseEntity<ProblemDetail> answerTooLarge(AnswerTooLargeException e) {
        log.error("refused to build a watch answer: {}", e.getMessage());
        ProblemDetail problem = problem(HttpStatus.SERVICE_UNAVAILABLE, ProblemCodes.ANSWER_TOO_LARGE, e.getMessage());
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header(HttpHeaders.RETRY_AFTER, "30").body(problem);
    }

    @ExceptionHandler({DataAccessException.class, TransactionException.class})
    ResponseEntity<ProblemDetail> rulesStoreFailure(RuntimeException e) {
        if (StoreFailures.isUnstorableValue(e)) {
            // the catalogs refuse such values first; this covers any parameter they do not know about
            return respond(problem(HttpStatus.BAD_REQUEST, ProblemCodes.BAD_REQUEST,
                    "A parameter holds a value PostgreSQL cannot store or compare (a NUL, text that is not UTF-8, or a date or number out of range)."));
        }
        if (StoreFailures.isContention(e)) {
            log.info("a rules store transaction lost a race and was rolled back: {}", e.getMessage());
            ProblemDetail problem = problem(HttpStatus.SERVICE_UNAVAILABLE, ProblemCodes.STORE_BUSY,
                    "The change collided with another writer of the rules store and was rolled back whole; nothing was changed. Retry.");
            problem.setProperty("store", "rules");
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header(HttpHeaders.RETRY_AFTER, "1").body(problem);
        }
        if (!StoreFailures.isUnavailable(e)) {
            return unexpected(e);
        }
        log.warn("rules store unavailable: {}", e.getMessage());
        ProblemDetail problem = problem(HttpStatus.SERVICE_UNAVAILABLE, ProblemCodes.STORE_UNAVAILABLE,
                "The rules store (PostgreSQL) cannot be reached; nothing was changed. Retry later.");
        problem.setProperty("store", "rules");
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header(HttpHeaders.RETRY_AFTER, "5").body(problem);
    }

    /** Tomcat decodes query parameters lazily and throws when one is not percent-encoded UTF-8 ({@code ?reason=%E2%82}). */
    @ExceptionHandler(InvalidParameterException.class)
    ResponseEntity<ProblemDetail> undecodableParameter(InvalidParameterException e) {
        return respond(problem(HttpStatus.BAD_REQUEST, ProblemCodes.BAD_REQUEST,
                "A query parameter is not valid percent-encoded UTF-8."));
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<ProblemDetail> unexpected(Exception e) {
        if (hasCause(e, BodyTooLargeException.class)) {
            return respond(tooLarge(e));
        }
        if (StoreFailures.isUnavailable(e)) {
            return rulesStoreFailure(new TransientStoreFailure(e));
        }
        log.error("unexpected failure", e);
        return respond(problem(HttpStatus.INTERNAL_SERVER_ERROR, ProblemCodes.INTERNAL_ERROR, "An unexpected error occurred."));
    }

    /**
     * A body Jackson could not read. An enum value that names nothing ({@code "algorithm": "leaky"}) is
     * a rule that cannot be enforced: 422 {@code invalid_rule} naming the field, like the validator's
     * refusals. Anything else is 400 {@code bad_request}, also naming the field; a body past the cap 413.
     */
    @Override
    protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException ex, HttpHeaders headers,
                                                                  HttpStatusCode status, WebRequest request) {
        if (hasCause(ex, BodyTooLargeException.class)) {
            return ResponseEntity.status(HttpStatus.CONTENT_TOO_LARGE).body(tooLarge(ex));
        }
        UnreadableBody unreadable = UnreadableBody.of(ex);
        if (unreadable.invalidValue()) {
            return ResponseEntity.unprocessableContent().body(invalidRule(new InvalidRuleException(
                    List.of(new Violation(unreadable.field(), unreadable.message())))).getBody());
        }
        String where = unreadable.field().isEmpty() ? "" : " (at " + unreadable.field() + ")";
        ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, ProblemCodes.BAD_REQUEST,
                "The request body cannot be read: " + unreadable.message() + where + ".");
        problem.setProperty("errors", List.of(Map.of("field", unreadable.field(), "message", unreadable.message())));
        return ResponseEntity.badRequest().body(problem);
    }

    /** Spring's own web errors (404, 405, 415, a bad query parameter, ...) get a code too. */
    @Override
    protected ResponseEntity<Object> handleExceptionInternal(Exception ex, Object body, HttpHeaders headers,
                                                             HttpStatusCode status, WebRequest request) {
        ResponseEntity<Object> response = super.handleExceptionInternal(ex, body, headers, status, request);
        if (response != null && response.getBody() instanceof ProblemDetail problem
                && (problem.getProperties() == null || !problem.getProperties().containsKey("code"))) {
            problem.setProperty("code", ProblemCodes.forStatus(status.value()));
        }
        return response;
    }

    private static List<Map<String, String>> fields(List<Violation> violations) {
        return violations.stream().map(v -> Map.of("field", v.field(), "message", v.message())).toList();
    }

    private static ProblemDetail tooLarge(Throwable error) {
        BodyTooLargeException cause = cause(error, BodyTooLargeException.class);
        return problem(HttpStatus.CONTENT_TOO_LARGE, ProblemCodes.PAYLOAD_TOO_LARGE, cause.getMessage());
    }

    private static boolean hasCause(Throwable error, Class<? extends Throwable> type) {
        return cause(error, type) != null;
    }

    private static <T extends Throwable> T cause(Throwable error, Class<T> type) {
        for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (type.isInstance(cause)) {
                return type.cast(cause);
            }
        }
        return null;
    }

    private static ProblemDetail problem(HttpStatus status, String code, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setProperty("code", code);
        return problem;
    }

    private static ResponseEntity<ProblemDetail> respond(ProblemDetail problem) {
        return ResponseEntity.status(problem.getStatus()).body(problem);
    }

    /** Carries a non-Spring exception whose cause chain is a connection failure into the 503 path. */
    private static final class TransientStoreFailure extends DataAccessException {
        TransientStoreFailure(Throwable cause) {
            super(cause.getMessage(), cause);
        }
    }
}
