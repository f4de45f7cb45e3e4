package dev.tollgate.check.access;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * The service tokens the check ports accept, as {@code Authorization: Bearer <token>} (HTTP) or
 * {@code authorization} metadata (gRPC). More than one may be accepted at once, so a token is rotated
 * without a gap: add the new one, roll the gateways, drop the old one. None configured: the ports are
 * open, as before, for a network that admits only gateways (the Helm chart's NetworkPolicy).
 *
 * <p>Only digests are kept, and compared in constant time, so neither a heap dump nor the time an
 * answer takes tells a token.
 */
public final class ServiceTokens {

    /** A token shorter than this is a guessable password, not a service secret. */
    static final int MIN_LENGTH = 16;
    private static final String BEARER = "bearer ";

    private final List<byte[]> digests;

    private ServiceTokens(List<byte[]> digests) {
        this.digests = digests;
    }

    /** @throws IllegalArgumentException for a token too short to be a secret; the message never holds it */
    public static ServiceTokens of(List<String> tokens) {
        return of("tollgate.access.tokens", tokens);
    }

    /** @param property where the tokens were configured, for the refusal's message */
    public static ServiceTokens of(String property, List<String> tokens) {
        List<byte[]> digests = new ArrayList<>();
        for (String token : tokens == null ? List.<String>of() : tokens) {
            if (token == null || token.isBlank()) {
                continue;
            }
            if (token.strip().length() < MIN_LENGTH) {
                throw new IllegalArgumentException(property + ": every token must be at least " + MIN_LENGTH
                        + " characters (e.g. openssl rand -hex 32)");
            }
            digests.add(digest(token.strip()));
        }
        return new ServiceTokens(List.copyOf(digests));
    }

    public boolean required() {
        return !digests.isEmpty();
    }

    /** Whether the {@code Authorization} value (or gRPC metadata) carries an accepted token; always true when none is required. */
    public boolean accepts(String authorization) {
        if (!required()) {
            return true;
        }
        if (authorization == null || authorization.length() <= BEARER.length()
                || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return false;
        }
        byte[] presented = digest(authorization.substring(BEARER.length()).strip());
        boolean accepted = false;
        for (byte[] digest : digests) {
            // no early exit: every accepted token is compared, whichever matches
            accepted |= MessageDigest.isEqual(digest, presented);
        }
        return accepted;
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }
}
