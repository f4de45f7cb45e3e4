package dev.tollgate.rules.security;

import dev.tollgate.rules.problem.ProblemCodes;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.oauth2.server.resource.web.BearerTokenAuthenticationEntryPoint;
import org.springframework.security.oauth2.server.resource.web.access.BearerTokenAccessDeniedHandler;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.access.AccessDeniedHandler;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * 401 and 403 as problem details. The bearer-token handlers still set the status and the
 * {@code WWW-Authenticate} header RFC 6750 asks for; this adds the body with a {@code code}.
 */
final class ProblemResponses implements AuthenticationEntryPoint, AccessDeniedHandler {

    private final AuthenticationEntryPoint bearer = new BearerTokenAuthenticationEntryPoint();
    private final AccessDeniedHandler denied = new BearerTokenAccessDeniedHandler();
    private final JsonMapper json;

    ProblemResponses(JsonMapper json) {
        this.json = json;
    }

    @Override
    public void commence(HttpServletRequest request, HttpServletResponse response, AuthenticationException failure)
            throws IOException, ServletException {
        boolean presented = request.getHeader("Authorization") != null;
        bearer.commence(request, response, failure);
        int status = response.getStatus();
        String detail = presented
                ? "The bearer token is not valid (malformed, wrongly signed, expired, or not from this service's issuer for this service)."
                : "A bearer token is required.";
        write(request, response, status, status == 401 ? ProblemCodes.UNAUTHORIZED : ProblemCodes.BAD_REQUEST, detail, null);
    }

    @Override
    public void handle(HttpServletRequest request, HttpServletResponse response, AccessDeniedException failure)
            throws IOException, ServletException {
        denied.handle(request, response, failure);
        String scope = Scopes.requiredFor(request);
        write(request, response, HttpStatus.FORBIDDEN.value(), ProblemCodes.FORBIDDEN,
                "The token does not carry scope " + scope + ", which this request needs.", scope);
    }

    private void write(HttpServletRequest request, HttpServletResponse response, int status, String code, String detail,
                       String requiredScope) throws IOException {
        Map<String, Object> problem = new LinkedHashMap<>();
        HttpStatus known = HttpStatus.resolve(status);
        problem.put("title", known == null ? "Error" : known.getReasonPhrase());
        problem.put("status", status);
        problem.put("detail", detail);
        problem.put("instance", request.getRequestURI());
        problem.put("code", code);
        if (requiredScope != null) {
            problem.put("required_scope", requiredScope);
        }
        response.setStatus(status);
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.getWriter().write(json.writeValueAsString(problem));
    }
}
