package dev.tollgate.rules.security;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.security.oauth2.server.resource.autoconfigure.OAuth2ResourceServerProperties;
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
 * Bearer tokens on every endpoint but health, and none on the management port (when actuator has one).
 * JWTs are decoded by the decoder Spring Boot configures
 * from {@code spring.security.oauth2.resourceserver.jwt.issuer-uri} (keys discovered from the issuer, or
 * from {@code jwk-set-uri} when given) or {@code public-key-location}, and must come from the configured
 * issuer for one of the configured audiences ({@link JwtClaims}); the token's {@code sub} is who the
 * history records.
 */
@Configuration(proxyBeanMethods = false)
class SecurityConfiguration {

    @Bean
    SecurityFilterChain api(HttpSecurity http, AuthenticationManagerResolver<HttpServletRequest> bearerTokens, JsonMapper json,
                            ManagementPortRequests managementPort) throws Exception {
        ProblemResponses problems = new ProblemResponses(json);
        http.csrf(csrf -> csrf.disable())
                .sessionManagement(session -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .requestCache(cache -> cache.disable())
                .authorizeHttpRequests(requests -> requests
                        // actuator on its own port (management.server.port): reachable by the scraper and probes only
                        .requestMatchers(managementPort).permitAll()
                        .requestMatchers("/actuator/health", "/actuator/health/**", "/error").permitAll()
                        .requestMatchers(HttpMethod.GET, "/v1/watch").hasAuthority(Scopes.authority(Scopes.WATCH))
                        .requestMatchers(HttpMethod.GET, "/v1/**").hasAuthority(Scopes.authority(Scopes.READ))
                        // a diff carries a file, so it is a POST, but it only reads (a pull request's check holds no admin
                        // token); this exact path is all it matches, and any other spelling falls to the admin rule below
                        .requestMatchers(HttpMethod.POST, Scopes.READ_ONLY_POSTS).hasAuthority(Scopes.authority(Scopes.READ))
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

    @Bean
    ManagementPortRequests managementPortRequests() {
        return new ManagementPortRequests();
    }

    /**
     * The dev profile's static token first (when configured), then JWTs (when a decoder is configured),
     * each JWT checked for its issuer and audience on top of what the decoder checks.
     */
    @Bean
    AuthenticationManagerResolver<HttpServletRequest> bearerTokens(SecurityProperties properties, ObjectProvider<JwtDecoder> decoders,
                                                                   ObjectProvider<OAuth2ResourceServerProperties> resourceServer,
                                                                   Environment environment) {
        DevTokenPolicy.check(properties, environment);
        List<AuthenticationProvider> providers = new ArrayList<>();
        if (properties.devToken() != null) {
            providers.add(new StaticTokenAuthenticationProvider(properties.devToken()));
        }
        JwtDecoder decoder = decoders.getIfAvailable();
        if (decoder != null) {
            JwtClaims claims = JwtClaims.required(properties, resourceServer.getIfAvailable(OAuth2ResourceServerProperties::new).getJwt());
            providers.add(new JwtAuthenticationProvider(claims.checking(decoder)));
        }
        if (providers.isEmpty()) {
            throw new IllegalStateException("rules-service has no way to check bearer tokens: set "
                    + "spring.security.oauth2.resourceserver.jwt.issuer-uri (with .audiences; optionally .jwk-set-uri), "
                    + "or, for local development with the 'dev' profile, " + DevTokenPolicy.ENV_VARIABLE);
        }
        ProviderManager manager = new ProviderManager(providers);
        return request -> manager;
    }
}
