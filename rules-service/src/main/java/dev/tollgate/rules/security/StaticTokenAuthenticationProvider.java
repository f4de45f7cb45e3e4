package dev.tollgate.rules.security;

import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The dev profile's static token: subject {@code dev}, every scope. Answers null for any other token,
 * so the JWT provider after it still gets its turn.
 */
final class StaticTokenAuthenticationProvider implements AuthenticationProvider {

    static final String SUBJECT = "dev";

    private final byte[] token;

    StaticTokenAuthenticationProvider(String token) {
        this.token = token.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public Authentication authenticate(Authentication authentication) {
        String presented = ((BearerTokenAuthenticationToken) authentication).getToken();
        // constant time: the comparison must not reveal how much of a guess was right
        if (!MessageDigest.isEqual(token, presented.getBytes(StandardCharsets.UTF_8))) {
            return null;
        }
        return UsernamePasswordAuthenticationToken.authenticated(SUBJECT, null, AuthorityUtils.createAuthorityList(
                Scopes.authority(Scopes.ADMIN), Scopes.authority(Scopes.READ), Scopes.authority(Scopes.WATCH)));
    }

    @Override
    public boolean supports(Class<?> authentication) {
        return BearerTokenAuthenticationToken.class.isAssignableFrom(authentication);
    }
}
