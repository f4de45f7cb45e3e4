package dev.tollgate.rules.security;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolderStrategy;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.time.Clock;

/**
 * Ends a token sign-in's session at the token's {@code exp}: the session is invalidated and the request goes on
 * as one without a session (a page redirects to the sign-in, a change is refused for its CSRF token). Without it
 * a session outlived the token it was made from, so a short-lived token kept its scopes for as long as the
 * session lasted. Runs right after the security context is read from the session, before anything uses it.
 */
final class TokenSessionExpiry extends OncePerRequestFilter {

    private final Clock clock;
    private final SecurityContextHolderStrategy contexts = SecurityContextHolder.getContextHolderStrategy();

    TokenSessionExpiry(Clock clock) {
        this.clock = clock;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (contexts.getContext().getAuthentication() instanceof TokenSession session && session.expiredAt(clock.instant())) {
            HttpSession expired = request.getSession(false);
            if (expired != null) {
                expired.invalidate();
            }
            contexts.clearContext();
        }
        chain.doFilter(request, response);
    }
}
