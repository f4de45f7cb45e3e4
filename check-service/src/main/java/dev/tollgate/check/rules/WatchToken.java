package dev.tollgate.check.rules;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The bearer token a pod shows the watch feed: none, a fixed one, one in a file, or one obtained by OAuth2
 * client credentials ({@link ClientCredentialsToken}). A token in a file is read again for every poll:
 * watch tokens are JWTs that expire, and whatever renews them (a mounted Secret that Kubernetes refreshes,
 * a Vault agent, a projected service-account token) replaces the file, never the running pod.
 */
public sealed interface WatchToken permits WatchToken.Fixed, WatchToken.InFile, ClientCredentialsToken {

    /** No token: for a feed that needs none (tests, a trusted network). */
    WatchToken NONE = new Fixed(null);

    /** The token to send now, or null for none. */
    String current() throws IOException;

    /** rules-service answered 401 to the token just sent: one that can get another does so next time. */
    default void refused() {
    }

    static WatchToken fixed(String token) {
        return token == null || token.isBlank() ? NONE : new Fixed(token.strip());
    }

    static WatchToken file(Path file) {
        return new InFile(file);
    }

    record Fixed(String token) implements WatchToken {

        @Override
        public String current() {
            return token;
        }

        @Override
        public String toString() {
            return token == null ? "no token" : "a fixed token";
        }
    }

    record InFile(Path file) implements WatchToken {

        @Override
        public String current() throws IOException {
            String token = Files.readString(file, StandardCharsets.UTF_8).strip();
            if (token.isEmpty()) {
                throw new IOException("the watch token file " + file + " is empty");
            }
            return token;
        }

        @Override
        public String toString() {
            return "the token in " + file;
        }
    }
}
