package dev.tollgate.gateway.app;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.web.reactive.EnableWebFluxSecurity;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.oauth2.jwt.NimbusReactiveJwtDecoder;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.security.web.server.SecurityWebFilterChain;

import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;

/**
 * A gateway that verifies its callers' bearer JWTs (HS256 with {@code test.jwt-secret}, as an application verifies
 * them with its issuer's keys): a token that does not verify is a 401 before any route; a request without one passes
 * anonymous, and then has no claims to read.
 */
@Configuration(proxyBeanMethods = false)
@EnableWebFluxSecurity
public class VerifiedJwts {

    @Bean
    SecurityWebFilterChain bearerTokens(ServerHttpSecurity http, ReactiveJwtDecoder decoder) {
        return http.authorizeExchange(exchanges -> exchanges.anyExchange().permitAll())
                .csrf(ServerHttpSecurity.CsrfSpec::disable)
                .oauth2ResourceServer(server -> server.jwt(jwt -> jwt.jwtDecoder(decoder)))
                .build();
    }

    @Bean
    ReactiveJwtDecoder jwtDecoder(@Value("${test.jwt-secret}") String secret) {
        return NimbusReactiveJwtDecoder.withSecretKey(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256")).build();
    }
}
