package dev.tollgate.rules.security;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpMethod;
import org.springframework.security.authentication.AuthenticationManagerResolver;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.authentication.ProviderManager;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationProvider;
import org.springframework.security.web.SecurityFilterChain;
import tools.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
import java.util.List;

/**
 * Bearer tokens on every endpoint but health. JWTs are checked by the resource server that Spring Boot
 * configures from {@code spring.security.oauth2.resourceserver.jwt.jwk-set-uri} (or
 * {@code public-key-location}); the token's {@code sub} is who the history records.
 */
@Configuration(proxyBeanMethods = false)
class SecurityConfiguration {

    static final String DEV_PROFILE = "dev";

    @Bean
    SecurityFilterChain api(HttpSecurity http, AuthenticationManagerResolver<HttpServletRequest> bearerTokens, JsonMapper json) throws Exception {
        ProblemResponses problems = new ProblemResponses(json);
        http.csrf(csrf -> csrf.disable())
                .sessionManagement(session -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .requestCache(cache -> cache.disable())
                .authorizeHttpRequests(requests -> requests
                        .requestMatchers("/actuator/health", "/actuator/health/**", "/error").permitAll()
                        .requestMatchers(HttpMethod.GET, "/v1/watch").hasAuthority(Scopes.authority(Scopes.WATCH))
                        .requestMatchers(HttpMethod.GET, "/v1/**").hasAuthority(Scopes.authority(Scopes.READ))
                        .requestMatchers(HttpMethod.HEAD, "/v1/**").hasAuthority(Scopes.authority(Scopes.READ))
                        .requestMatchers("/v1/**").hasAuthority(Scopes.authority(Scopes.ADMIN))
                        // the API document, metrics and anything else: a reader's token
                        .anyRequest().hasAuthority(Scopes.authority(Scopes.READ)))
                .oauth2ResourceServer(resourceServer -> resourceServer
                        .authenticationManagerResolver(bearerTokens)
                        .authenticationEntryPoint(problems)
                        .accessDeniedHandler(problems))
                .exceptionHandling(exceptions -> exceptions
                        .authenticationEntryPoint(problems)
                        .accessDeniedHandler(problems));
        return http.build();
    }

    /** The dev profile's static token first (when configured), then JWTs (when a decoder is configured). */
    @Bean
    AuthenticationManagerResolver<HttpServletRequest> bearerTokens(SecurityProperties properties, ObjectProvider<JwtDecoder> decoders,
                                                                   Environment environment) {
        requireDevProfileForStaticToken(properties, environment);
        List<AuthenticationProvider> providers = new ArrayList<>();
        if (properties.devToken() != null) {
            providers.add(new StaticTokenAuthenticationProvider(properties.devToken()));
        }
        JwtDecoder decoder = decoders.getIfAvailable();
        if (decoder != null) {
            providers.add(new JwtAuthenticationProvider(decoder));
        }
        if (providers.isEmpty()) {
            throw new IllegalStateException("rules-service has no way to check bearer tokens: set "
                    + "spring.security.oauth2.resourceserver.jwt.jwk-set-uri (or .public-key-location), "
                    + "or, for local development with the 'dev' profile, tollgate.security.dev-token");
        }
        ProviderManager manager = new ProviderManager(providers);
        return request -> manager;
    }

    static void requireDevProfileForStaticToken(SecurityProperties properties, Environment environment) {
        if (properties.devToken() != null && !environment.matchesProfiles(DEV_PROFILE)) {
            throw new IllegalStateException("tollgate.security.dev-token is set but the '" + DEV_PROFILE + "' profile is not active. "
                    + "A static token is for local development only: remove it (and configure "
                    + "spring.security.oauth2.resourceserver.jwt.*), or run with spring.profiles.active=" + DEV_PROFILE);
        }
    }
}
