package dev.tollgate.rules;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;

/**
 * Mints JWTs for tests with an RSA key made here; the service under test trusts its public key through
 * {@code spring.security.oauth2.resourceserver.jwt.public-key-location}, the production configuration path.
 */
final class TestTokens {

    static final String ADMIN = "ratelimit:admin";
    static final String READ = "ratelimit:read";
    static final String WATCH = "ratelimit:watch";

    private static final KeyPair TRUSTED = rsa();
    private static final KeyPair UNTRUSTED = rsa();
    private static final Path PUBLIC_KEY = writePublicKey(TRUSTED);

    private TestTokens() {
    }

    /** {@code file:} location of the trusted public key, PEM-encoded. */
    static String publicKeyLocation() {
        return PUBLIC_KEY.toUri().toString();
    }

    /** A valid token for {@code subject} with the given scopes. */
    static String token(String subject, String... scopes) {
        return sign(TRUSTED.getPrivate(), subject, Instant.now().plus(Duration.ofMinutes(5)), scopes);
    }

    static String all(String subject) {
        return token(subject, ADMIN, READ, WATCH);
    }

    static String expired(String subject, String... scopes) {
        return sign(TRUSTED.getPrivate(), subject, Instant.now().minus(Duration.ofMinutes(5)), scopes);
    }

    static String signedByStranger(String subject, String... scopes) {
        return sign(UNTRUSTED.getPrivate(), subject, Instant.now().plus(Duration.ofMinutes(5)), scopes);
    }

    private static String sign(PrivateKey key, String subject, Instant expiry, String... scopes) {
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .subject(subject)
                .issueTime(Date.from(expiry.minus(Duration.ofMinutes(10))))
                .expirationTime(Date.from(expiry))
                .claim("scope", String.join(" ", scopes))
                .build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), claims);
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
}
