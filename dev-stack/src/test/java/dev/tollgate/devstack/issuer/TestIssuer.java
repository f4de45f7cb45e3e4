package dev.tollgate.devstack.issuer;

import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.proc.SecurityContext;
import dev.tollgate.devstack.app.ServiceLauncher;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.oauth2.core.AuthorizationGrantType;
import org.springframework.security.oauth2.core.ClientAuthenticationMethod;
import org.springframework.security.oauth2.server.authorization.client.InMemoryRegisteredClientRepository;
import org.springframework.security.oauth2.server.authorization.client.RegisteredClient;
import org.springframework.security.oauth2.server.authorization.settings.AuthorizationServerSettings;
import org.springframework.security.oauth2.server.authorization.settings.TokenSettings;
import org.springframework.security.oauth2.server.authorization.token.JwtEncodingContext;
import org.springframework.security.oauth2.server.authorization.token.OAuth2TokenCustomizer;
import org.springframework.security.web.SecurityFilterChain;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real OAuth2 issuer for tests: Spring Authorization Server on loopback, issuing JWT access tokens by
 * client credentials and publishing its keys at its JWKS endpoint (found from
 * {@code /.well-known/oauth-authorization-server}, as rules-service finds it from its issuer-uri).
 *
 * <p>Its keys outlive it, so that it can be stopped (an outage) and started again on the same port with the
 * same keys, and they can be {@link Keys#rotate() rotated}: the new key signs from then on while the old
 * one stays published, as identity providers rotate.
 */
public final class TestIssuer implements AutoCloseable {

    /** The {@code aud} every token carries: rules-service's audience. */
    public static final String AUDIENCE = "tollgate-rules-service";

    private final int port;
    private final Keys keys;
    private final List<Client> clients;
    private ConfigurableApplicationContext context;

    /**
     * @param scopes   the scopes the client may ask for, space-separated
     * @param lifetime how long its access tokens live
     */
    public record Client(String id, String secret, String scopes, Duration lifetime) {
    }

    private TestIssuer(int port, Keys keys, List<Client> clients) {
        this.port = port;
        this.keys = keys;
        this.clients = List.copyOf(clients);
    }

    /** An issuer on {@code port} (loopback), started. */
    public static TestIssuer start(int port, Client... clients) {
        TestIssuer issuer = new TestIssuer(port, new Keys(), List.of(clients));
        issuer.start();
        return issuer;
    }

    public String issuerUri() {
        return "http://127.0.0.1:" + port;
    }

    public String tokenUri() {
        return issuerUri() + "/oauth2/token";
    }

    public Keys keys() {
        return keys;
    }

    /** Started again after {@link #stop()}: same port, same keys, same clients. */
    public synchronized void start() {
        InMemoryRegisteredClientRepository registered = new InMemoryRegisteredClientRepository(clients.stream().map(TestIssuer::registered).toList());
        context = new SpringApplicationBuilder(Server.class)
                .web(WebApplicationType.SERVLET)
                .logStartupInfo(false)
                .initializers(app -> {
                    app.getBeanFactory().registerSingleton("testIssuerKeys", keys);
                    app.getBeanFactory().registerSingleton("testIssuerClients", registered);
                })
                .run("--server.address=127.0.0.1", "--server.port=" + port, "--tollgate.test-issuer.uri=" + issuerUri(),
                        // none of the services' application.yml: the issuer is configured here
                        "--spring.config.location=optional:classpath:/no-such-test-issuer.yml",
                        "--spring.main.banner-mode=off", "--spring.main.register-shutdown-hook=false",
                        "--management.metrics.use-global-registry=false", "--springdoc.api-docs.enabled=false",
                        "--spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration,"
                                + "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration," + ServiceLauncher.REACTIVE_HTTP_CLIENT);
    }

    /** An outage: the port refuses connections until {@link #start()}. */
    public synchronized void stop() {
        if (context != null) {
            context.close();
            context = null;
        }
    }

    @Override
    public void close() {
        stop();
    }

    private static RegisteredClient registered(Client client) {
        return RegisteredClient.withId(UUID.randomUUID().toString())
                .clientId(client.id())
                .clientSecret("{noop}" + client.secret())
                .clientAuthenticationMethod(ClientAuthenticationMethod.CLIENT_SECRET_BASIC)
                .clientAuthenticationMethod(ClientAuthenticationMethod.CLIENT_SECRET_POST)
                .authorizationGrantType(AuthorizationGrantType.CLIENT_CREDENTIALS)
                .scopes(scopes -> scopes.addAll(List.of(client.scopes().split(" "))))
                .tokenSettings(TokenSettings.builder().accessTokenTimeToLive(client.lifetime()).build())
                .build();
    }

    /**
     * The issuer's RSA keys: one signs, all are published. Tokens name their key ({@code kid}), so a
     * resource server that has not seen a new key yet fetches the key set again.
     */
    public static final class Keys implements JWKSource<SecurityContext> {

        private final List<RSAKey> published = new CopyOnWriteArrayList<>();
        private volatile RSAKey signing;
        /** Tokens issued, by client id, with the key that signed each. */
        private final Map<String, List<String>> issued = new ConcurrentHashMap<>();

        Keys() {
            rotate();
        }

        /** A new key signs from now on; the old ones stay published, so the tokens they signed stay valid. */
        public synchronized String rotate() {
            try {
                signing = new RSAKeyGenerator(2048).keyID("key-" + (published.size() + 1)).generate();
            } catch (com.nimbusds.jose.JOSEException e) {
                throw new IllegalStateException(e);
            }
            published.add(0, signing);
            return signing.getKeyID();
        }

        public String signingKeyId() {
            return signing.getKeyID();
        }

        /** The key ids of the tokens issued to {@code clientId}, in order. */
        public List<String> issuedTo(String clientId) {
            return List.copyOf(issued.getOrDefault(clientId, List.of()));
        }

        @Override
        public List<JWK> get(com.nimbusds.jose.jwk.JWKSelector selector, SecurityContext context) {
            return selector.select(new JWKSet(new ArrayList<>(published)));
        }

        void record(String clientId, String keyId) {
            issued.computeIfAbsent(clientId, id -> new CopyOnWriteArrayList<>()).add(keyId);
        }
    }

    /**
     * The authorization server's own configuration: its endpoints and the issuer. The clients and the keys
     * (its RegisteredClientRepository and JWKSource) are registered by {@link TestIssuer#start()}.
     */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableWebSecurity
    static class Server {

        @Bean
        SecurityFilterChain authorizationServer(HttpSecurity http) throws Exception {
            http.oauth2AuthorizationServer(server -> { })
                    .authorizeHttpRequests(requests -> requests.anyRequest().authenticated())
                    .csrf(csrf -> csrf.disable());
            return http.build();
        }

        @Bean
        AuthorizationServerSettings authorizationServerSettings(org.springframework.core.env.Environment environment) {
            return AuthorizationServerSettings.builder().issuer(environment.getRequiredProperty("tollgate.test-issuer.uri")).build();
        }

        /** rules-service's audience in every token, and the signing key named, as identity providers do. */
        @Bean
        OAuth2TokenCustomizer<JwtEncodingContext> audienceAndKey(Keys keys) {
            return context -> {
                String kid = keys.signingKeyId();
                context.getJwsHeader().keyId(kid);
                context.getClaims().audience(List.of(AUDIENCE));
                keys.record(context.getRegisteredClient().getClientId(), kid);
            };
        }
    }
}
