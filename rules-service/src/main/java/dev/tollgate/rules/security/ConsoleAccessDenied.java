package dev.tollgate.rules.security;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.web.access.AccessDeniedHandler;
import org.springframework.security.web.csrf.CsrfException;

import java.io.IOException;

/**
 * A 403 in the console is a page a person can read: either the change needs {@code ratelimit:admin}, or
 * the form carried no valid CSRF token (a stale page, or a request forged from another site).
 */
final class ConsoleAccessDenied implements AccessDeniedHandler {

    /** Request attribute the console's error page reads: {@code csrf} or {@code scope}. */
    static final String REASON = "tollgate.console.denied";

    @Override
    public void handle(HttpServletRequest request, HttpServletResponse response, AccessDeniedException denied)
            throws IOException, ServletException {
        request.setAttribute(REASON, denied instanceof CsrfException ? "csrf" : "scope");
        request.setAttribute(RequestDispatcher.ERROR_REQUEST_URI, request.getRequestURI());
        response.setStatus(HttpServletResponse.SC_FORBIDDEN);
        request.getRequestDispatcher("/console/denied").forward(request, response);
    }
}
