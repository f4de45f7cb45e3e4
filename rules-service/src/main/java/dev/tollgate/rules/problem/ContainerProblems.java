package dev.tollgate.rules.problem;

import org.springframework.http.HttpStatus;
import tools.jackson.databind.json.JsonMapper;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Problem details written outside Spring MVC, where no message converter runs: a request Tomcat's HTTP parser
 * refuses ({@link ProblemReportValve}), an error forwarded to {@code /error} ({@link ErrorProblems}), a body
 * refused by a servlet filter before it is read.
 */
public final class ContainerProblems {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private ContainerProblems() {
    }

    /**
     * The container's own error as a body, {@code application/problem+json}: worded by its status alone, since
     * the container's message may quote what the caller sent; {@code instance} null when the target is unknown.
     */
    static String body(int status, String instance) {
        return body(status, ProblemCodes.forStatus(status), detail(status), instance);
    }

    /** A problem of this status, code and detail as a body, {@code application/problem+json}. */
    public static String body(int status, String code, String detail, String instance) {
        HttpStatus known = HttpStatus.resolve(status);
        Map<String, Object> problem = new LinkedHashMap<>();
        problem.put("title", known != null ? known.getReasonPhrase() : "Error");
        problem.put("status", status);
        problem.put("detail", detail);
        if (instance != null) {
            problem.put("instance", instance);
        }
        problem.put("code", code);
        return JSON.writeValueAsString(problem);
    }

    private static String detail(int status) {
        return switch (status) {
            case 400 -> "The request is not HTTP this service can read: its request line, a header, or the framing of its body"
                    + " (Content-Length, chunks) is malformed, or the request line or headers are too long.";
            case 404 -> "Nothing is found at this path.";
            case 505 -> "The HTTP version is not supported: send HTTP/1.1.";
            default -> status >= 500 ? "The service failed to answer; retry, and report it if it persists."
                    : "The request was refused.";
        };
    }
}
