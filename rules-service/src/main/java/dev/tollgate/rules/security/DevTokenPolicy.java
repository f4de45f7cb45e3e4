package dev.tollgate.rules.security;

import org.springframework.core.env.Environment;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * When the static dev token may be used. The token is a shared secret with every scope that never
 * expires, so: only in the {@code dev} profile, never a default value (a token everyone knows, such as
 * the README's {@code dev-token}, would be enabled by the profile alone), and a short one only while the
 * service listens on loopback, where no one else can reach it.
 */
final class DevTokenPolicy {

    static final String DEV_PROFILE = "dev";
    static final String PROPERTY = "tollgate.security.dev-token";
    /** What application-dev.yml reads the token from. */
    static final String ENV_VARIABLE = "TOLLGATE_DEV_TOKEN";
    /** Shorter tokens ("dev-token") are for loopback only: guessable, and printed in every README. */
    static final int MIN_LENGTH_OFF_LOOPBACK = 16;

    private DevTokenPolicy() {
    }

    /** @throws IllegalStateException with what to set, when the token and the profile do not go together */
    static void check(SecurityProperties properties, Environment environment) {
        String token = properties.devToken();
        boolean devProfile = environment.matchesProfiles(DEV_PROFILE);
        if (token != null && !devProfile) {
            throw new IllegalStateException(PROPERTY + " is set but the '" + DEV_PROFILE + "' profile is not active. "
                    + "A static token is for local development only: remove it (and configure "
                    + "spring.security.oauth2.resourceserver.jwt.*), or run with spring.profiles.active=" + DEV_PROFILE);
        }
        if (!devProfile) {
            return;
        }
        if (token == null) {
            throw new IllegalStateException("The '" + DEV_PROFILE + "' profile takes a static bearer token and has no default: set "
                    + ENV_VARIABLE + " (or " + PROPERTY + ") to a token of your own, at least " + MIN_LENGTH_OFF_LOOPBACK
                    + " characters unless server.address is a loopback address");
        }
        String address = environment.getProperty("server.address");
        if (token.length() < MIN_LENGTH_OFF_LOOPBACK && !isLoopback(address)) {
            throw new IllegalStateException(PROPERTY + " (" + ENV_VARIABLE + ") is " + token.length() + " characters long and the service "
                    + "listens on " + (address == null || address.isBlank() ? "every interface" : address) + ": a token shorter than "
                    + MIN_LENGTH_OFF_LOOPBACK + " characters is accepted only with server.address=127.0.0.1 (or another loopback "
                    + "address). Set a longer token, or listen on loopback");
        }
    }

    /** Unset (or blank) means every interface, which is not loopback. */
    static boolean isLoopback(String address) {
        if (address == null || address.isBlank()) {
            return false;
        }
        try {
            return InetAddress.getByName(address.trim()).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
