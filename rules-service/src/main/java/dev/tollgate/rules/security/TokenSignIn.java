package dev.tollgate.rules.security;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.security.authentication.AuthenticationManagerResolver;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The console's token form: the token is checked exactly as the API checks a bearer token (the dev
 * token, or a JWT of the configured issuer and audience), and the session gets its subject and scopes.
 * The session keeps them past a JWT's expiry, for as long as the session lasts, as an OAuth2 login's would.
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
        return UsernamePasswordAuthenticationToken.authenticated(checked.getName(), null, checked.getAuthorities());
    }

    @Override
    public boolean supports(Class<?> authentication) {
        return UsernamePasswordAuthenticationToken.class.isAssignableFrom(authentication);
    }

    private static HttpServletRequest currentRequest() {
        return RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes attributes ? attributes.getRequest() : null;
    }
}
