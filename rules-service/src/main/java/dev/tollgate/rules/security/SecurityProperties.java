package dev.tollgate.rules.security;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * @param devToken a static bearer token with every scope and subject {@code dev}, for local runs. The
 *                 service refuses to start with one outside the {@code dev} profile: a shared secret
 *                 that never expires and names no one has no place in front of production rules. It
 *                 has no default anywhere, so that turning the profile on never enables a token
 *                 everyone knows; see {@link DevTokenPolicy}.
 * @param issuer   the {@code iss} a JWT must carry, for when the keys come from
 *                 {@code spring.security.oauth2.resourceserver.jwt.public-key-location} (Spring Boot
 *                 cannot take {@code issuer-uri} together with a key file). Otherwise leave it unset:
 *                 {@code issuer-uri} is the issuer. See {@link JwtClaims}.
 */
@ConfigurationProperties("tollgate.security")
public record SecurityProperties(String devToken, String issuer) {

    public SecurityProperties {
        devToken = devToken == null || devToken.isBlank() ? null : devToken;
        issuer = issuer == null || issuer.isBlank() ? null : issuer;
    }

    @Override
    public String toString() {
        return "SecurityProperties[devToken=" + (devToken == null ? "none" : "****") + ", issuer=" + issuer + "]";
    }
}
