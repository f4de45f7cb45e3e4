package dev.tollgate.cli;

import picocli.CommandLine.Option;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.function.Function;

/** Where rules-service is and who asks it: the options every command that talks to it shares. */
final class ServerOptions {

    static final String URL_VARIABLE = "TOLLGATE_URL";
    static final String TOKEN_VARIABLE = "TOLLGATE_TOKEN";

    @Option(names = "--url", paramLabel = "URL",
            description = "rules-service's base URL, e.g. http://127.0.0.1:8081 (default: $" + URL_VARIABLE + ")")
    String url;

    @Option(names = "--token", paramLabel = "TOKEN",
            description = "a bearer token (default: $" + TOKEN_VARIABLE + ", the better place: a command line is visible to"
                    + " the machine's other users). Never printed.")
    String token;

    @Option(names = "--connect-timeout", paramLabel = "SECONDS", defaultValue = "5",
            description = "how long to wait for a connection (default: ${DEFAULT-VALUE})")
    int connectTimeoutSeconds;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "30",
            description = "how long to wait for each whole answer (default: ${DEFAULT-VALUE})")
    int timeoutSeconds;

    /** The client these options describe; a missing or malformed value is a usage failure naming the option. */
    RulesApi api(Function<String, String> env, boolean tokenRequired) {
        String base = base(url != null ? url : env.apply(URL_VARIABLE));
        String bearer = token != null ? token : env.apply(TOKEN_VARIABLE);
        bearer = bearer == null || bearer.isBlank() ? null : bearer.strip();
        if (bearer == null && tokenRequired) {
            throw Failure.usage("no token: give --token or set " + TOKEN_VARIABLE + " (an apply needs scope ratelimit:admin)");
        }
        if (bearer != null && !bearer.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            // said without the value: it is a secret even when it is a wrong one
            throw Failure.usage("the token has spaces or characters a bearer token cannot have; check --token or " + TOKEN_VARIABLE);
        }
        if (connectTimeoutSeconds < 1 || timeoutSeconds < 1) {
            throw Failure.usage("--connect-timeout and --timeout must be at least 1 second");
        }
        return new RulesApi(base, bearer, Duration.ofSeconds(connectTimeoutSeconds), Duration.ofSeconds(timeoutSeconds));
    }

    private static String base(String url) {
        if (url == null || url.isBlank()) {
            throw Failure.usage("no URL: give --url or set " + URL_VARIABLE + " (rules-service's base URL, e.g. http://127.0.0.1:8081)");
        }
        try {
            URI uri = new URI(url.strip());
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null
                    || uri.getRawQuery() != null || uri.getRawFragment() != null || uri.getRawUserInfo() != null) {
                throw Failure.usage("--url must be an http or https URL of rules-service, with no query and no credentials: " + safe(url));
            }
            String text = uri.toString();
            return text.endsWith("/") ? text.substring(0, text.length() - 1) : text;
        } catch (URISyntaxException e) {
            throw Failure.usage("--url is not a URL: " + e.getReason() + " at index " + e.getIndex());
        }
    }

    /** A URL as it may be printed: without what could be a password in it. */
    private static String safe(String url) {
        return url.replaceAll("//[^/@]*@", "//…@");
    }
}
