package dev.tollgate.check.rules;

import dev.tollgate.check.metrics.CheckMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.http.client.ClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.http.converter.FormHttpMessageConverter;
import org.springframework.security.oauth2.client.AuthorizedClientServiceOAuth2AuthorizedClientManager;
import org.springframework.security.oauth2.client.InMemoryOAuth2AuthorizedClientService;
import org.springframework.security.oauth2.client.OAuth2AuthorizeRequest;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClient;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClientManager;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClientProviderBuilder;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClientService;
import org.springframework.security.oauth2.client.endpoint.RestClientClientCredentialsTokenResponseClient;
import org.springframework.security.oauth2.client.http.OAuth2ErrorResponseErrorHandler;
import org.springframework.security.oauth2.client.registration.ClientRegistration;
import org.springframework.security.oauth2.client.registration.ClientRegistrationRepository;
import org.springframework.security.oauth2.core.AuthorizationGrantType;
import org.springframework.security.oauth2.core.ClientAuthenticationMethod;
import org.springframework.security.oauth2.core.OAuth2AccessToken;
import org.springframework.security.oauth2.core.OAuth2AuthorizationException;
import org.springframework.security.oauth2.core.OAuth2ErrorCodes;
import org.springframework.security.oauth2.core.http.converter.OAuth2AccessTokenResponseHttpMessageConverter;
import org.springframework.web.client.HttpStatusCodeException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;

/**
 * The watch token obtained by OAuth2 client credentials from the region's identity provider, with
 * Spring Security's OAuth2 client (the non-web {@link AuthorizedClientServiceOAuth2AuthorizedClientManager}:
 * check-service has no Spring Security filter chain, and gets none from this).
 *
 * <p>Renewed before it expires: once the token held is within {@code clockSkew} of its expiry, the next
 * poll asks the issuer for a new one. An issuer outage costs nothing while the token held is valid: a
 * renewal that fails keeps it in use until its own expiry. Past that, {@link #current()} fails, the poll
 * fails with it, and the watcher keeps the rules in force and retries with its jittered backoff until the
 * issuer answers again. Each failure is counted; a run of failures is logged once, and its end once.
 *
 * <p>The client secret is read again for every request to the issuer (from its file, when it is one), so a
 * rotated Secret is used without a restart.
 */
public final class ClientCredentialsToken implements WatchToken {

    private static final Logger log = LoggerFactory.getLogger(ClientCredentialsToken.class);
    static final String REGISTRATION = "rules-watch";
    /** The pod asks for itself, not for a user: one authorized client, under this name. */
    private static final String PRINCIPAL = "check-service";
    /** Answers in which the issuer says no to the credentials or the request: a configuration to fix, not an outage. */
    private static final Set<String> REFUSALS = Set.of(OAuth2ErrorCodes.INVALID_CLIENT, OAuth2ErrorCodes.UNAUTHORIZED_CLIENT,
            OAuth2ErrorCodes.INVALID_SCOPE, OAuth2ErrorCodes.INVALID_REQUEST, OAuth2ErrorCodes.ACCESS_DENIED,
            OAuth2ErrorCodes.INVALID_GRANT, OAuth2ErrorCodes.UNSUPPORTED_GRANT_TYPE);

    /** Where the client secret comes from: read for every request to the issuer. */
    @FunctionalInterface
    public interface Secret {

        String read() throws IOException;
    }

    /**
     * @param tokenUri       the issuer's token endpoint
     * @param clientId       this pods' client at the issuer
     * @param secret         its secret
     * @param scope          the scope asked for (rules-service's watch feed needs {@code ratelimit:watch})
     * @param audience       an {@code audience} parameter for issuers that take one (Auth0, some Keycloak
     *                       set-ups); null: none
     * @param authentication how the client authenticates: {@code client_secret_basic} or {@code client_secret_post}
     * @param clockSkew      how long before its expiry a token is renewed
     * @param timeout        connect and read timeout of one request to the issuer
     * @param sslBundle      trust for an https issuer; null: the JVM's
     */
    public record Settings(URI tokenUri, String clientId, Secret secret, String scope, String audience,
                           ClientAuthenticationMethod authentication, Duration clockSkew, Duration timeout, SslBundle sslBundle) {
    }

    private final OAuth2AuthorizedClientManager manager;
    private final OAuth2AuthorizedClientService clients;
    private final URI tokenUri;
    private final Clock clock;
    private final Counter refusedByIssuer;
    private final Counter issuerUnavailable;
    /** The last token the issuer gave, kept apart from the manager's cache: an outage must not take it away. */
    private OAuth2AccessToken held;
    /** The kind of the run of failures under way (null: none), so that a run is logged once, not every poll. */
    private String failing;

    ClientCredentialsToken(OAuth2AuthorizedClientManager manager, OAuth2AuthorizedClientService clients, URI tokenUri, Clock clock,
                           MeterRegistry registry) {
        this.manager = manager;
        this.clients = clients;
        this.tokenUri = tokenUri;
        this.clock = clock;
        String description = "Watch token requests the issuer failed: refused (wrong client id, secret or scope) or unavailable"
                + " (down, slow, a bad answer); the pod keeps its token until it expires, and its rules";
        this.refusedByIssuer = Counter.builder(CheckMeters.RULES_TOKEN_FAILURES).tag("reason", "refused").description(description)
                .register(registry);
        this.issuerUnavailable = Counter.builder(CheckMeters.RULES_TOKEN_FAILURES).tag("reason", "unavailable").description(description)
                .register(registry);
    }

    /** @param http Spring Boot's RestClient builder, so that token requests are observed as the feed's polls are */
    public static ClientCredentialsToken of(Settings settings, RestClient.Builder http, Clock clock, MeterRegistry registry) {
        ClientRegistrationRepository registrations = id -> REGISTRATION.equals(id) ? registration(settings) : null;
        RestClientClientCredentialsTokenResponseClient tokens = new RestClientClientCredentialsTokenResponseClient();
        // what the token client's own RestClient has (a form out, a token response or an OAuth2 error back), on Boot's builder
        tokens.setRestClient(http
                .requestFactory(ClientHttpRequestFactoryBuilder.jdk()
                        .build(HttpClientSettings.defaults().withTimeouts(settings.timeout(), settings.timeout()).withSslBundle(settings.sslBundle())))
                .configureMessageConverters(converters -> converters
                        .addCustomConverter(new FormHttpMessageConverter())
                        .addCustomConverter(new OAuth2AccessTokenResponseHttpMessageConverter()))
                .defaultStatusHandler(new OAuth2ErrorResponseErrorHandler())
                .build());
        if (settings.audience() != null && !settings.audience().isBlank()) {
            tokens.setParametersCustomizer(parameters -> parameters.set("audience", settings.audience()));
        }
        OAuth2AuthorizedClientService clients = new InMemoryOAuth2AuthorizedClientService(registrations);
        AuthorizedClientServiceOAuth2AuthorizedClientManager manager = new AuthorizedClientServiceOAuth2AuthorizedClientManager(registrations, clients);
        manager.setAuthorizedClientProvider(OAuth2AuthorizedClientProviderBuilder.builder()
                .clientCredentials(grant -> grant.accessTokenResponseClient(tokens).clockSkew(settings.clockSkew()).clock(clock))
                .build());
        return new ClientCredentialsToken(manager, clients, settings.tokenUri(), clock, registry);
    }

    private static ClientRegistration registration(Settings settings) {
        String secret;
        try {
            secret = settings.secret().read();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the client secret: " + e.getMessage(), e);
        }
        return ClientRegistration.withRegistrationId(REGISTRATION)
                .clientId(settings.clientId())
                .clientSecret(secret)
                .clientAuthenticationMethod(settings.authentication())
                .authorizationGrantType(AuthorizationGrantType.CLIENT_CREDENTIALS)
                .tokenUri(settings.tokenUri().toString())
                .scope(settings.scope().split("[\\s,]+"))
                .build();
    }

    /**
     * The token to show rules-service: the one held while it is not near its expiry, else a new one from the
     * issuer, else (the issuer failing) the one held until it expires.
     *
     * @throws IOException when the issuer fails and the pod holds no unexpired token
     */
    @Override
    public synchronized String current() throws IOException {
        OAuth2AuthorizedClient client;
        try {
            client = manager.authorize(OAuth2AuthorizeRequest.withClientRegistrationId(REGISTRATION).principal(PRINCIPAL).build());
        } catch (OAuth2AuthorizationException | UncheckedIOException | RestClientException e) {
            return heldDespite(e);
        }
        if (client == null) {
            throw new IOException("the issuer " + tokenUri + " gave no token");
        }
        if (failing != null) {
            log.info("the issuer {} issues watch tokens again", tokenUri);
            failing = null;
        }
        held = client.getAccessToken();
        return held.getTokenValue();
    }

    private String heldDespite(RuntimeException e) throws IOException {
        boolean refused = refusal(e);
        (refused ? refusedByIssuer : issuerUnavailable).increment();
        String kind = refused ? "refused" : "unavailable";
        boolean usable = held != null && held.getExpiresAt() != null && held.getExpiresAt().isAfter(clock.instant());
        if (!kind.equals(failing)) {
            String what = refused
                    ? "refused the pod's client credentials (" + e.getMessage() + "): check tollgate.rules.client-credentials.client-id, "
                    + "its secret and scope"
                    : "could not be asked for a watch token (" + e.getMessage() + ")";
            log.warn("the issuer {} {}; {}", tokenUri, what, usable
                    ? "the pod goes on with the token it holds, valid until " + held.getExpiresAt()
                    : "the pod holds no valid token, so rules-service cannot be watched: the rules in force stay, and the pod retries");
            failing = kind;
        }
        if (usable) {
            return held.getTokenValue();
        }
        throw new IOException("no valid watch token: the issuer " + tokenUri + " " + kind + " (" + e.getMessage() + ")", e);
    }

    /**
     * Whether the issuer answered and said no. Spring's token client reads an OAuth2 error from a 400 only;
     * a 401 {@code invalid_client} (RFC 6749 5.2, for a client that authenticated with HTTP Basic) comes as the
     * HTTP error it wraps. A 5xx, or no answer, is an outage.
     */
    private static boolean refusal(RuntimeException e) {
        if (e instanceof OAuth2AuthorizationException oauth && REFUSALS.contains(oauth.getError().getErrorCode())) {
            return true;
        }
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof HttpStatusCodeException http) {
                return http.getStatusCode().is4xxClientError();
            }
        }
        return false;
    }

    /** rules-service refused the token (a key the issuer no longer publishes, a revoked client): ask for another next time. */
    @Override
    public synchronized void refused() {
        clients.removeAuthorizedClient(REGISTRATION, PRINCIPAL);
        held = null;
    }

    @Override
    public String toString() {
        return "a client-credentials token from " + tokenUri;
    }
}
