package dev.tollgate.rules.security;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.http.HttpMethod;
import org.springframework.security.authentication.AuthenticationManagerResolver;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.oauth2.client.registration.ClientRegistrationRepository;
import org.springframework.security.oauth2.client.web.DefaultOAuth2AuthorizationRequestResolver;
import org.springframework.security.oauth2.client.web.OAuth2AuthorizationRequestCustomizers;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.LoginUrlAuthenticationEntryPoint;
import org.springframework.security.web.context.SecurityContextHolderFilter;

import java.time.Clock;

/**
 * The support console's own filter chain, before the API's ({@link SecurityConfiguration}, which stays
 * as it is for {@code /v1/**}): a browser session instead of a bearer token on every request, CSRF
 * protection on every change (htmx sends the token as a header, plain forms as a field), and the same
 * scopes as the API: {@code ratelimit:read} to look (a rule's "what if" too), {@code ratelimit:admin} to change.
 *
 * <p>Sign-in: OAuth2 login (authorization code with PKCE) against the API's issuer, when a client
 * registration is configured ({@code spring.security.oauth2.client.registration.<id>.*}); the scopes the
 * issuer grants become the authorities, as a JWT's do. And, in the {@code dev} profile or with
 * {@code tollgate.console.token-sign-in=true}, a form that takes a token the API would take (the dev
 * token, or a JWT, whose session {@link TokenSessionExpiry} ends at its {@code exp}).
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ConsoleSignIn.Properties.class)
class ConsoleSecurityConfiguration {

    static final String LOGIN = "/console/login";
    static final String AUTHORIZATION_BASE = "/console/oauth2/authorization";

    @Bean
    @Order(1)
    SecurityFilterChain console(HttpSecurity http, ObjectProvider<ClientRegistrationRepository> registrations,
                                AuthenticationManagerResolver<HttpServletRequest> bearerTokens, ConsoleSignIn signIn,
                                Clock clock) throws Exception {
        http.securityMatcher("/console/**")
                .authorizeHttpRequests(requests -> requests
                        // the denied page is where a refused request is forwarded to, whatever its method
                        .dispatcherTypeMatchers(DispatcherType.FORWARD, DispatcherType.ERROR).permitAll()
                        .requestMatchers(LOGIN, "/console/console.css", "/console/webjars/**").permitAll()
                        .requestMatchers(HttpMethod.GET, "/console/**").hasAuthority(Scopes.authority(Scopes.READ))
                        .requestMatchers(HttpMethod.HEAD, "/console/**").hasAuthority(Scopes.authority(Scopes.READ))
                        // a what-if is a POST for its form and CSRF token but saves nothing: a reader's, on these patterns
                        // only (as the router matches them); every other POST, any spelling of a change, needs admin
                        .requestMatchers(HttpMethod.POST, Scopes.CONSOLE_READ_ONLY_POSTS).hasAuthority(Scopes.authority(Scopes.READ))
                        .anyRequest().hasAuthority(Scopes.authority(Scopes.ADMIN)))
                .exceptionHandling(exceptions -> exceptions
                        .authenticationEntryPoint(new LoginUrlAuthenticationEntryPoint(LOGIN))
                        .accessDeniedHandler(new ConsoleAccessDenied()))
                .logout(logout -> logout.logoutUrl("/console/logout").logoutSuccessUrl(LOGIN + "?signed-out"))
                .headers(headers -> headers.contentSecurityPolicy(csp -> csp.policyDirectives(
                        // everything from the app itself: htmx from its webjar, no CDN, no inline script
                        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'")));
        ClientRegistrationRepository clients = registrations.getIfAvailable();
        if (clients != null) {
            DefaultOAuth2AuthorizationRequestResolver authorizationRequests =
                    new DefaultOAuth2AuthorizationRequestResolver(clients, AUTHORIZATION_BASE);
            // PKCE for confidential clients too (public ones get it anyway): a stolen code is useless without the verifier
            authorizationRequests.setAuthorizationRequestCustomizer(OAuth2AuthorizationRequestCustomizers.withPkce());
            http.oauth2Login(login -> login
                    .loginPage(LOGIN)
                    .authorizationEndpoint(endpoint -> endpoint.authorizationRequestResolver(authorizationRequests))
                    .redirectionEndpoint(endpoint -> endpoint.baseUri("/console/login/oauth2/code/*"))
                    .defaultSuccessUrl("/console/", false)
                    .failureUrl(LOGIN + "?error"));
        }
        if (signIn.token()) {
            http.authenticationProvider(new TokenSignIn(bearerTokens))
                    .addFilterAfter(new TokenSessionExpiry(clock), SecurityContextHolderFilter.class)
                    .formLogin(form -> form
                            .loginPage(LOGIN)
                            .loginProcessingUrl(LOGIN)
                            .usernameParameter("who")
                            .passwordParameter("token")
                            .defaultSuccessUrl("/console/", false)
                            .failureUrl(LOGIN + "?error"));
        }
        return http.build();
    }

    @Bean
    ConsoleSignIn consoleSignIn(ConsoleSignIn.Properties properties, ObjectProvider<ClientRegistrationRepository> registrations,
                                Environment environment) {
        return ConsoleSignIn.of(properties, registrations.getIfAvailable(), environment.matchesProfiles(DevTokenPolicy.DEV_PROFILE));
    }
}
