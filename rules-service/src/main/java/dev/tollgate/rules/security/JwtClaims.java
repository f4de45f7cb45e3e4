package dev.tollgate.rules.security;

import org.springframework.boot.security.oauth2.server.resource.autoconfigure.OAuth2ResourceServerProperties;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.OAuth2ErrorCodes;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidatorResult;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtIssuerValidator;
import org.springframework.security.oauth2.jwt.JwtValidationException;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Who a JWT must come from and be meant for. A signature alone says only that the identity provider
 * issued the token: without these two checks, any token it issues for any client, with scope
 * {@code ratelimit:admin}, would be accepted here.
 *
 * <p>Checked on every JWT whatever the source of its keys ({@code issuer-uri}, {@code jwk-set-uri} or
 * {@code public-key-location}): Spring Boot applies {@code issuer-uri} and {@code audiences} itself when
 * it knows them, but cannot take an issuer with a key file, and a check made here does not depend on
 * which of its decoders is in use.
 *
 * @param issuer    the {@code iss} every token must carry
 * @param audiences a token's {@code aud} must name at least one of these
 */
record JwtClaims(String issuer, List<String> audiences) {

    static final String ISSUER_URI = "spring.security.oauth2.resourceserver.jwt.issuer-uri";
    static final String AUDIENCES = "spring.security.oauth2.resourceserver.jwt.audiences";
    static final String ISSUER = "tollgate.security.issuer";

    JwtClaims {
        audiences = List.copyOf(audiences);
    }

    /**
     * The issuer and audiences JWTs are checked against: {@value #ISSUER_URI} (or {@value #ISSUER}) and
     * {@value #AUDIENCES}.
     *
     * @throws IllegalStateException naming what to set, when either is missing or they contradict each other
     */
    static JwtClaims required(SecurityProperties security, OAuth2ResourceServerProperties.Jwt jwt) {
        String issuerUri = blankToNull(jwt.getIssuerUri());
        List<String> audiences = jwt.getAudiences() == null ? List.of()
                : jwt.getAudiences().stream().filter(a -> a != null && !a.isBlank()).map(String::trim).toList();
        if (issuerUri != null && jwt.getPublicKeyLocation() != null && blankToNull(jwt.getJwkSetUri()) == null) {
            // Boot would fetch the issuer's keys and silently ignore the key file
            throw new IllegalStateException("spring.security.oauth2.resourceserver.jwt.public-key-location is ignored when "
                    + ISSUER_URI + " is set (Spring Boot then reads the keys from the issuer): with a key file, set the issuer as "
                    + ISSUER + " instead");
        }
        if (issuerUri != null && security.issuer() != null && !issuerUri.equals(security.issuer())) {
            throw new IllegalStateException(ISSUER + " (" + security.issuer() + ") and " + ISSUER_URI + " (" + issuerUri
                    + ") disagree: set one of them");
        }
        String issuer = security.issuer() != null ? security.issuer() : issuerUri;
        List<String> missing = new ArrayList<>();
        if (issuer == null) {
            missing.add(ISSUER_URI + " (SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_ISSUER_URI), the identity provider's issuer, "
                    + "exactly as its tokens carry it in 'iss' (with a public-key-location: " + ISSUER + ")");
        }
        if (audiences.isEmpty()) {
            missing.add(AUDIENCES + " (SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_AUDIENCES), the 'aud' value(s), comma-separated, "
                    + "that the identity provider puts in tokens meant for rules-service");
        }
        if (!missing.isEmpty()) {
            throw new IllegalStateException("rules-service takes JWTs but would not check whom they come from or are meant for, "
                    + "so any token of the identity provider's with the right scope would do. Set " + String.join("; and ", missing));
        }
        return new JwtClaims(issuer, audiences);
    }

    OAuth2TokenValidator<Jwt> validator() {
        OAuth2TokenValidator<Jwt> audience = jwt -> jwt.getAudience() != null && !Collections.disjoint(jwt.getAudience(), audiences)
                ? OAuth2TokenValidatorResult.success()
                : OAuth2TokenValidatorResult.failure(new OAuth2Error(OAuth2ErrorCodes.INVALID_TOKEN,
                "The token's aud does not name this service", null));
        return new DelegatingOAuth2TokenValidator<>(new JwtIssuerValidator(issuer), audience);
    }

    /** {@code decoder}, then these checks: a token that fails them is as invalid as one wrongly signed (401). */
    JwtDecoder checking(JwtDecoder decoder) {
        OAuth2TokenValidator<Jwt> validator = validator();
        return token -> {
            Jwt jwt = decoder.decode(token);
            OAuth2TokenValidatorResult result = validator.validate(jwt);
            if (result.hasErrors()) {
                throw new JwtValidationException(result.getErrors().iterator().next().getDescription(), result.getErrors());
            }
            return jwt;
        };
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.trim();
    }
}
