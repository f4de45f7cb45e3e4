package dev.tollgate.rules.security;

import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.GrantedAuthority;

import java.io.Serial;
import java.time.Instant;
import java.util.Collection;

/**
 * A console session signed in with a token: its subject and scopes, held only until the token's {@code exp}
 * ({@link TokenSessionExpiry} ends the session then). Lives in the HTTP session, hence serializable.
 */
final class TokenSession extends UsernamePasswordAuthenticationToken {

    @Serial
    private static final long serialVersionUID = 1L;

    /** Null for a token without an expiry: the dev profile's static token. */
    private final Instant expiresAt;

    TokenSession(String subject, Collection<? extends GrantedAuthority> authorities, Instant expiresAt) {
        super(subject, null, authorities);
        this.expiresAt = expiresAt;
    }

    /** As a JWT's {@code exp} reads (RFC 7519 4.1.4): not to be accepted on or after it. */
    boolean expiredAt(Instant now) {
        return expiresAt != null && !now.isBefore(expiresAt);
    }
}
