package dev.tollgate.rules.security;

import org.junit.jupiter.api.Test;
import org.springframework.boot.security.oauth2.server.resource.autoconfigure.OAuth2ResourceServerProperties;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JwtClaimsTest {

    private static final String ISSUER = "https://login.example.com/realms/tollgate";
    private static final SecurityProperties NO_TOLLGATE_ISSUER = new SecurityProperties(null, null);

    @Test
    void keysAloneAreRefusedNamingBothSettings() {
        OAuth2ResourceServerProperties.Jwt jwt = new OAuth2ResourceServerProperties.Jwt();
        jwt.setJwkSetUri(ISSUER + "/certs");

        assertThatThrownBy(() -> JwtClaims.required(NO_TOLLGATE_ISSUER, jwt))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_ISSUER_URI")
                .hasMessageContaining("SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_AUDIENCES");
    }

    @Test
    void anIssuerWithoutAnAudienceIsRefused() {
        OAuth2ResourceServerProperties.Jwt jwt = new OAuth2ResourceServerProperties.Jwt();
        jwt.setIssuerUri(ISSUER);
        jwt.setAudiences(List.of(" "));

        assertThatThrownBy(() -> JwtClaims.required(NO_TOLLGATE_ISSUER, jwt))
                .hasMessageContaining("spring.security.oauth2.resourceserver.jwt.audiences")
                .hasMessageNotContaining("issuer-uri (");
    }

    @Test
    void theIssuerComesFromIssuerUriOrFromTollgateSecurityIssuer() {
        OAuth2ResourceServerProperties.Jwt fromIdp = new OAuth2ResourceServerProperties.Jwt();
        fromIdp.setIssuerUri(ISSUER);
        fromIdp.setAudiences(List.of("tollgate-rules-service"));
        OAuth2ResourceServerProperties.Jwt keyFile = new OAuth2ResourceServerProperties.Jwt();
        keyFile.setPublicKeyLocation(new ByteArrayResource(new byte[0]));
        keyFile.setAudiences(List.of("a", "b"));

        assertThat(JwtClaims.required(NO_TOLLGATE_ISSUER, fromIdp)).isEqualTo(new JwtClaims(ISSUER, List.of("tollgate-rules-service")));
        assertThat(JwtClaims.required(new SecurityProperties(null, ISSUER), keyFile)).isEqualTo(new JwtClaims(ISSUER, List.of("a", "b")));
        assertThatThrownBy(() -> JwtClaims.required(NO_TOLLGATE_ISSUER, keyFile)).hasMessageContaining("tollgate.security.issuer");
    }

    @Test
    void aKeyFileBesideAnIssuerUriIsRefusedBecauseBootWouldIgnoreIt() {
        OAuth2ResourceServerProperties.Jwt jwt = new OAuth2ResourceServerProperties.Jwt();
        jwt.setIssuerUri(ISSUER);
        jwt.setPublicKeyLocation(new ByteArrayResource(new byte[0]));
        jwt.setAudiences(List.of("tollgate-rules-service"));

        assertThatThrownBy(() -> JwtClaims.required(NO_TOLLGATE_ISSUER, jwt)).hasMessageContaining("public-key-location is ignored");
    }

    @Test
    void twoIssuersThatDisagreeAreRefused() {
        OAuth2ResourceServerProperties.Jwt jwt = new OAuth2ResourceServerProperties.Jwt();
        jwt.setIssuerUri(ISSUER);
        jwt.setJwkSetUri(ISSUER + "/certs");
        jwt.setAudiences(List.of("tollgate-rules-service"));

        assertThatThrownBy(() -> JwtClaims.required(new SecurityProperties(null, "https://other.example"), jwt)).hasMessageContaining("disagree");
    }

    @Test
    void theCheckingDecoderPassesOnlyTheIssuersTokensForOneOfTheAudiences() {
        JwtClaims claims = new JwtClaims(ISSUER, List.of("tollgate-rules-service", "tollgate-admin"));

        assertThat(decode(claims, jwt(ISSUER, List.of("tollgate-rules-service"))).getSubject()).isEqualTo("alice");
        assertThat(decode(claims, jwt(ISSUER, List.of("billing", "tollgate-admin"))).getSubject()).isEqualTo("alice");
        assertThatThrownBy(() -> decode(claims, jwt("https://login.example.com/realms/other", List.of("tollgate-rules-service"))))
                .isInstanceOf(BadJwtException.class);
        assertThatThrownBy(() -> decode(claims, jwt(null, List.of("tollgate-rules-service")))).isInstanceOf(BadJwtException.class);
        assertThatThrownBy(() -> decode(claims, jwt(ISSUER, List.of("billing")))).isInstanceOf(BadJwtException.class)
                .hasMessageContaining("aud");
        assertThatThrownBy(() -> decode(claims, jwt(ISSUER, null))).isInstanceOf(BadJwtException.class);
    }

    private static Jwt decode(JwtClaims claims, Jwt decoded) {
        JwtDecoder decoder = token -> decoded;
        return claims.checking(decoder).decode("token");
    }

    private static Jwt jwt(String issuer, List<String> audiences) {
        Jwt.Builder builder = Jwt.withTokenValue("token").header("alg", "RS256").subject("alice")
                .issuedAt(Instant.now()).expiresAt(Instant.now().plusSeconds(60));
        if (issuer != null) {
            builder.issuer(issuer);
        }
        if (audiences != null) {
            builder.audience(audiences);
        }
        return builder.build();
    }
}
