package dev.tollgate.rules.security;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.security.authentication.AuthenticationManagerResolver;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.oauth2.server.resource.authentication.AbstractOAuth2TokenAuthenticationToken;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

import java.time.Instant;

/**
 * The console's token form: the token is checked exactly as the API checks a bearer token (the dev
 * token, or a JWT of the configured issuer and audience), and the session gets its subject and scopes
 * until a JWT's {@code exp}, when {@link TokenSessionExpiry} ends it: a token handed out for minutes must
 * not buy a session of hours.
 */
final class TokenSignIn implements AuthenticationProvider {

    private final AuthenticationManagerResolver<HttpServletRequest> bearerTokens;

    TokenSignIn(AuthenticationManagerResolver<HttpServletRequest> bearerTokens) {
        this.bearerTokens = bearerTokens;
    }

    @Override
    public Authentication authenticate(Authentication form) {
        Object credentials = form.getCredentials();
        String token = credentials == null ? "" : credentials.toString().trim();
        if (token.isEmpty()) {
            throw new BadCredentialsException("no token given");
        }
        Authentication checked;
        try {
            checked = bearerTokens.resolve(currentRequest()).authenticate(new BearerTokenAuthenticationToken(token));
        } catch (AuthenticationException e) {
            throw new BadCredentialsException("the token is not valid here", e);
        }
        if (checked == null || !checked.isAuthenticated()) {
            throw new BadCredentialsException("the token is not valid here");
        }
        Instant expiresAt = checked instanceof AbstractOAuth2TokenAuthenticationToken<?> jwt ? jwt.getToken().getExpiresAt() : null;
        return new TokenSession(checked.getName(), checked.getAuthorities(), expiresAt);
    }

    @Override
    public boolean supports(Class<?> authentication) {
        return UsernamePasswordAuthenticationToken.class.isAssignableFrom(authentication);
    }

    private static HttpServletRequest currentRequest() {
        return RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes attributes ? attributes.getRequest() : null;
    }
}
