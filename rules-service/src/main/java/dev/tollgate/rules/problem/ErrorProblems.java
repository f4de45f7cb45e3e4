package dev.tollgate.rules.problem;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * {@code /error}, where the container forwards an error that Spring MVC's handlers did not answer (a chunked
 * body whose framing breaks while it is read, a filter that gave up): problem details with a {@code code},
 * in place of Spring Boot's {@code {"timestamp", "status", "error", "path"}}. Written directly, whatever the
 * request's {@code Accept}: an error must not turn into a 406.
 */
@RestController
class ErrorProblems implements ErrorController {

    @RequestMapping("${server.error.path:/error}")
    void error(HttpServletRequest request, HttpServletResponse response) throws IOException {
        int status = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE) instanceof Integer code && code >= 400 ? code : 500;
        String instance = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI) instanceof String uri ? uri : null;
        response.setStatus(status);
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.getWriter().write(ContainerProblems.body(status, instance));
    }
}
