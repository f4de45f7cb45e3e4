package dev.tollgate.rules;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.springframework.test.context.DynamicPropertyRegistry;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.concurrent.Executors;

/**
 * Mints JWTs for tests with an RSA key made here, as an identity provider would: issuer {@link #issuer()},
 * audience {@link #AUDIENCE}. The service under test trusts them in one of the two ways production
 * configures it: {@link #trustThroughIssuer} (what the Helm chart sets: {@code issuer-uri} and
 * {@code audiences}, the keys discovered from the issuer, here a loopback HTTP server serving the
 * OpenID configuration and the key set), or {@link #trustThroughKeyFile} ({@code public-key-location},
 * with the issuer as {@code tollgate.security.issuer}).
 */
final class TestTokens {

    static final String ADMIN = "ratelimit:admin";
    static final String READ = "ratelimit:read";
    static final String WATCH = "ratelimit:watch";

    /** The {@code aud} rules-service is configured to accept. */
    static final String AUDIENCE = "tollgate-rules-service";

    private static final String REALM = "/realms/tollgate-test";

    private static final KeyPair TRUSTED = rsa();
    private static final KeyPair UNTRUSTED = rsa();
    private static final Path PUBLIC_KEY = writePublicKey(TRUSTED);
    private static final String ISSUER = serveIdentityProvider(TRUSTED);

    private TestTokens() {
    }

    /** The {@code iss} of every token minted here, and the issuer-uri of the loopback identity provider. */
    static String issuer() {
        return ISSUER;
    }

    /** The {@code aud} of every token minted here. */
    static String audience() {
        return AUDIENCE;
    }

    /** {@code file:} location of the trusted public key, PEM-encoded. */
    static String publicKeyLocation() {
        return PUBLIC_KEY.toUri().toString();
    }

    /** The Helm chart's configuration: the issuer (its keys discovered from it) and the audience. */
    static void trustThroughIssuer(DynamicPropertyRegistry registry) {
        registry.add("spring.security.oauth2.resourceserver.jwt.issuer-uri", TestTokens::issuer);
        registry.add("spring.security.oauth2.resourceserver.jwt.audiences", () -> AUDIENCE);
    }

    /** A key file, the issuer named beside it, and the audience. */
    static void trustThroughKeyFile(DynamicPropertyRegistry registry) {
        registry.add("spring.security.oauth2.resourceserver.jwt.public-key-location", TestTokens::publicKeyLocation);
        registry.add("tollgate.security.issuer", TestTokens::issuer);
        registry.add("spring.security.oauth2.resourceserver.jwt.audiences", () -> AUDIENCE);
    }

    /** A valid token for {@code subject} with the given scopes. */
    static String token(String subject, String... scopes) {
        return sign(TRUSTED.getPrivate(), ISSUER, List.of(AUDIENCE), subject, inFiveMinutes(), scopes);
    }

    static String all(String subject) {
        return token(subject, ADMIN, READ, WATCH);
    }

    /** A valid token for {@code subject} whose {@code exp} is {@code expiry}. */
    static String expiringAt(Instant expiry, String subject, String... scopes) {
        return sign(TRUSTED.getPrivate(), ISSUER, List.of(AUDIENCE), subject, expiry, scopes);
    }

    static String expired(String subject, String... scopes) {
        return sign(TRUSTED.getPrivate(), ISSUER, List.of(AUDIENCE), subject, Instant.now().minus(Duration.ofMinutes(5)), scopes);
    }

    static String signedByStranger(String subject, String... scopes) {
        return sign(UNTRUSTED.getPrivate(), ISSUER, List.of(AUDIENCE), subject, inFiveMinutes(), scopes);
    }

    /** Rightly signed, but with another {@code iss} (null: none). */
    static String fromIssuer(String issuer, String subject, String... scopes) {
        return sign(TRUSTED.getPrivate(), issuer, List.of(AUDIENCE), subject, inFiveMinutes(), scopes);
    }

    /** Rightly signed by the right issuer, for other audiences (empty: no {@code aud} at all). */
    static String forAudiences(List<String> audiences, String subject, String... scopes) {
        return sign(TRUSTED.getPrivate(), ISSUER, audiences, subject, inFiveMinutes(), scopes);
    }

    private static Instant inFiveMinutes() {
        return Instant.now().plus(Duration.ofMinutes(5));
    }

    private static String sign(PrivateKey key, String issuer, List<String> audiences, String subject, Instant expiry, String... scopes) {
        JWTClaimsSet.Builder claims = new JWTClaimsSet.Builder()
                .subject(subject)
                .issueTime(Date.from(expiry.minus(Duration.ofMinutes(10))))
                .expirationTime(Date.from(expiry))
                .claim("scope", String.join(" ", scopes));
        if (issuer != null) {
            claims.issuer(issuer);
        }
        if (!audiences.isEmpty()) {
            claims.audience(audiences);
        }
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), claims.build());
        try {
            jwt.sign(new RSASSASigner(key));
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
        return jwt.serialize();
    }

    private static KeyPair rsa() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Path writePublicKey(KeyPair pair) {
        String pem = "-----BEGIN PUBLIC KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(pair.getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----\n";
        try {
            Path file = Files.createTempFile("tollgate-test-jwt", ".pem");
            file.toFile().deleteOnExit();
            Files.writeString(file, pem);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The two documents a resource server reads from an OpenID Connect provider, on a free loopback port
     * for the life of the test JVM: the configuration at {@code <issuer>/.well-known/openid-configuration}
     * and the key set it points to. Returns the issuer.
     */
    private static String serveIdentityProvider(KeyPair pair) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            String issuer = "http://127.0.0.1:" + server.getAddress().getPort() + REALM;
            String jwks = new JWKSet(new RSAKey.Builder((RSAPublicKey) pair.getPublic()).keyID("test-key").build()).toString();
            String configuration = "{\"issuer\":\"" + issuer + "\",\"jwks_uri\":\"" + issuer + "/certs\","
                    + "\"authorization_endpoint\":\"" + issuer + "/auth\",\"token_endpoint\":\"" + issuer + "/token\","
                    + "\"response_types_supported\":[\"code\"],\"code_challenge_methods_supported\":[\"S256\"],"
                    + "\"subject_types_supported\":[\"public\"],\"id_token_signing_alg_values_supported\":[\"RS256\"]}";
            server.createContext(REALM + "/.well-known/openid-configuration", exchange -> respond(exchange, configuration));
            server.createContext(REALM + "/certs", exchange -> respond(exchange, jwks));
            server.createContext(REALM + "/auth", SignIns::authorize);
            server.createContext(REALM + "/token", exchange -> SignIns.token(exchange, issuer));
            // a few threads: a browser's sign-in and the services' key fetches may come at once
            server.setExecutor(Executors.newFixedThreadPool(4, runnable -> {
                Thread thread = new Thread(runnable, "test-identity-provider");
                thread.setDaemon(true);
                return thread;
            }));
            server.start();
            return issuer;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The identity provider's authorization-code flow, as a browser meets it: {@code /auth} signs in the
     * person set by {@link #signInAs} at once (no login form: that is the provider's business) and sends the
     * browser back with a code; {@code /token} exchanges the code for an access token (a JWT with the
     * person's scopes) and an ID token, and only with the PKCE verifier of the challenge {@code /auth} was
     * given: a client that sent no challenge, or another verifier, gets {@code invalid_grant}.
     */
    static final class SignIns {

        private record Pending(String clientId, String redirectUri, String challenge, String nonce, String subject, String[] scopes) {
        }

        private static final Map<String, Pending> CODES = new ConcurrentHashMap<>();
        private static volatile String subject = "nobody";
        private static volatile String[] scopes = {};
        /** The last authorization request's query parameters, for tests to check what the client sent. */
        static volatile Map<String, String> lastAuthorization = Map.of();

        private SignIns() {
        }

        /** Who the next sign-in at the provider is, with which scopes. */
        static void signInAs(String who, String... granted) {
            subject = who;
            scopes = granted;
        }

        static void authorize(HttpExchange exchange) throws IOException {
            Map<String, String> query = form(exchange.getRequestURI().getRawQuery());
            lastAuthorization = query;
            if (!"S256".equals(query.get("code_challenge_method")) || query.get("code_challenge") == null) {
                respond(exchange, 400, "{\"error\":\"invalid_request\",\"error_description\":\"PKCE (S256) is required\"}");
                return;
            }
            String code = UUID.randomUUID().toString();
            CODES.put(code, new Pending(query.get("client_id"), query.get("redirect_uri"), query.get("code_challenge"), query.get("nonce"),
                    subject, scopes));
            String location = query.get("redirect_uri") + "?code=" + code + "&state=" + URLEncoder.encode(query.get("state"), StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Location", location);
            exchange.sendResponseHeaders(302, -1);
            exchange.close();
        }

        static void token(HttpExchange exchange, String issuer) throws IOException {
            Map<String, String> body = form(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            Pending pending = body.get("code") == null ? null : CODES.remove(body.get("code"));
            if (pending == null || !pending.redirectUri().equals(body.get("redirect_uri")) || body.get("code_verifier") == null
                    || !pending.challenge().equals(s256(body.get("code_verifier")))) {
                respond(exchange, 400, "{\"error\":\"invalid_grant\"}");
                return;
            }
            String access = TestTokens.token(pending.subject(), pending.scopes());
            JWTClaimsSet.Builder id = new JWTClaimsSet.Builder().issuer(issuer).subject(pending.subject()).audience(pending.clientId())
                    .issueTime(new Date()).expirationTime(Date.from(inFiveMinutes()));
            if (pending.nonce() != null) {
                id.claim("nonce", pending.nonce());
            }
            SignedJWT idToken = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID("test-key").build(), id.build());
            try {
                idToken.sign(new RSASSASigner(TRUSTED.getPrivate()));
            } catch (JOSEException e) {
                throw new IllegalStateException(e);
            }
            respond(exchange, 200, "{\"access_token\":\"" + access + "\",\"token_type\":\"Bearer\",\"expires_in\":300,"
                    + "\"scope\":\"openid " + String.join(" ", pending.scopes()) + "\",\"id_token\":\"" + idToken.serialize() + "\"}");
        }

        private static String s256(String verifier) {
            try {
                byte[] digest = MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
                return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }

        private static Map<String, String> form(String encoded) {
            Map<String, String> values = new HashMap<>();
            if (encoded == null || encoded.isEmpty()) {
                return values;
            }
            for (String pair : encoded.split("&")) {
                int equals = pair.indexOf('=');
                String name = URLDecoder.decode(equals < 0 ? pair : pair.substring(0, equals), StandardCharsets.UTF_8);
                values.put(name, equals < 0 ? "" : URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
            }
            return values;
        }
    }

    private static void respond(HttpExchange exchange, int status, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private static void respond(HttpExchange exchange, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }
}
