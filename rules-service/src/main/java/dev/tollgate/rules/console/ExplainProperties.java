package dev.tollgate.rules.console;

import jakarta.validation.constraints.AssertTrue;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

import java.net.URI;
import java.time.Duration;

/**
 * Where the key page's "why would a check be denied now?" panel asks: a check-service pod's
 * {@code POST /v1/ratelimit:explain}, with a reader's token. Without a URL the panel says it is not set up.
 *
 * @param url            a check-service pod (or its Service) to ask, e.g. {@code http://tollgate-check-service:8080};
 *                       the answer is about the pod that serves it (its deny cache, leases, breakers). Unset: the panel is off
 * @param readerToken    one of the pods' {@code tollgate.access.reader-tokens}, sent as a bearer token; a secret, never
 *                       logged or shown
 * @param connectTimeout how long connecting to the pod may take: a person waits on it
 * @param readTimeout    how long the pod's whole answer may take, once connected: the page never hangs on a slow pod
 */
@Validated
@ConfigurationProperties("tollgate.console.explain")
public record ExplainProperties(URI url, String readerToken,
                                @DefaultValue("1s") @DurationMin(millis = 1) @DurationMax(seconds = 10) Duration connectTimeout,
                                @DefaultValue("2s") @DurationMin(millis = 1) @DurationMax(seconds = 10) Duration readTimeout) {

    public boolean configured() {
        return url != null && !url.toString().isBlank();
    }

    /** An absolute http(s) URL with a host and nothing the console would send elsewhere: no user info, query or fragment. */
    @AssertTrue(message = "tollgate.console.explain.url must be a check-service pod's base URL, http(s)://host:port, "
            + "without user info, query or fragment (the reader's token goes in tollgate.console.explain.reader-token)")
    public boolean isUrlUsable() {
        if (!configured()) {
            return true;
        }
        String scheme = url.getScheme();
        return url.isAbsolute() && ("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme)) && url.getHost() != null
                && url.getRawUserInfo() == null && url.getRawQuery() == null && url.getRawFragment() == null;
    }

    /** A URL without a token would be answered 401 on every look: say so at start-up, not to the first person who asks. */
    @AssertTrue(message = "tollgate.console.explain.reader-token is required with tollgate.console.explain.url, without spaces or "
            + "control characters: one of the pods' tollgate.access.reader-tokens (the chart: rulesService.console.explain.readerTokenSecret)")
    public boolean isTokenGiven() {
        return !configured() || (readerToken != null && !readerToken.isEmpty() && readerToken.chars().allMatch(c -> c > ' ' && c != 0x7f));
    }

    /** The token is a secret: a record's own toString would print it wherever the properties are logged. */
    @Override
    public String toString() {
        return "ExplainProperties[url=" + url + ", readerToken=" + (readerToken == null ? "unset" : "(set)")
                + ", connectTimeout=" + connectTimeout + ", readTimeout=" + readTimeout + "]";
    }
}
