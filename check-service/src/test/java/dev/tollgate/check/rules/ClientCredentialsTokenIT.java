package dev.tollgate.check.rules;

import dev.tollgate.testsupport.metrics.SeriesCatalog;
import dev.tollgate.testsupport.time.MutableClock;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.security.oauth2.core.ClientAuthenticationMethod;
import org.springframework.web.client.RestClient;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The watch token by client credentials, against a token endpoint on loopback and a clock the test moves:
 * one token until it nears its expiry, a new one before it expires, the held one through an issuer
 * outage until its own expiry, a rotated secret picked up from its file, and a refusal told apart from an
 * outage.
 */
class ClientCredentialsTokenIT {

    private static final long LIFETIME_S = 300;
    private static final Duration SKEW = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    // token lifetimes in minutes, tested in milliseconds
    private final MutableClock clock = new MutableClock(Instant.now());
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    @Test
    void keepsOneTokenUntilItNearsItsExpiryThenRenewsItBeforeIt() throws Exception {
        try (TokenEndpoint issuer = new TokenEndpoint("pods", "pod-secret", LIFETIME_S)) {
            ClientCredentialsToken token = token(issuer, secretFile("pod-secret"));
            assertThat(token.current()).isEqualTo("token-1");
            assertThat(issuer.lastScope()).isEqualTo("ratelimit:watch");
            clock.advance(Duration.ofSeconds(LIFETIME_S).minus(SKEW).minusSeconds(1));
            assertThat(token.current()).as("still well before its expiry").isEqualTo("token-1");
            clock.advance(Duration.ofSeconds(2));
            assertThat(token.current()).as("within the skew of its expiry: renewed before it expires").isEqualTo("token-2");
            assertThat(issuer.issued()).isEqualTo(2);
        }
    }

    @Test
    void goesOnWithTheTokenItHoldsThroughAnIssuerOutageUntilItExpiresThenRecovers() throws Exception {
        try (TokenEndpoint issuer = new TokenEndpoint("pods", "pod-secret", LIFETIME_S)) {
            ClientCredentialsToken token = token(issuer, secretFile("pod-secret"));
            assertThat(token.current()).isEqualTo("token-1");

            issuer.stop();
            clock.advance(Duration.ofSeconds(LIFETIME_S).minus(SKEW).plusSeconds(1));
            assertThat(token.current()).as("renewal fails: the held token is still valid").isEqualTo("token-1");
            assertThat(token.current()).isEqualTo("token-1");
            assertThat(failures("unavailable")).isEqualTo(2);

            clock.advance(SKEW);
            assertThatThrownBy(token::current).isInstanceOf(IOException.class).hasMessageContaining("no valid watch token");
            assertThat(failures("unavailable")).isEqualTo(3);
            assertThat(failures("refused")).isZero();

            issuer.restart();
            assertThat(token.current()).as("the issuer is back").isEqualTo("token-2");
        }
    }

    @Test
    void tellsAWrongSecretFromAnOutageAndPicksUpARotatedSecretFromItsFile() throws Exception {
        try (TokenEndpoint issuer = new TokenEndpoint("pods", "pod-secret", LIFETIME_S)) {
            Path secret = secretFile("pod-secret");
            ClientCredentialsToken token = token(issuer, secret);
            assertThat(token.current()).isEqualTo("token-1");

            // the issuer's side of a rotation comes first: the pod's secret is now wrong
            issuer.rotateSecret("rotated-secret");
            clock.advance(Duration.ofSeconds(LIFETIME_S + 1));
            assertThatThrownBy(token::current).isInstanceOf(IOException.class).hasMessageContaining("refused");
            assertThat(failures("refused")).isEqualTo(1);
            assertThat(failures("unavailable")).isZero();
            // the series the chart's TollgateWatchTokenFailing alert names (docs/metric-series.txt)
            assertThat(SeriesCatalog.missingFrom(registry.scrape(), "check-service/client-credentials")).isEmpty();

            // then the Secret volume is updated: read for the next request, no restart
            Files.writeString(secret, "rotated-secret\n");
            assertThat(token.current()).isEqualTo("token-2");
        }
    }

    @Test
    void asksForANewTokenOnceRulesServiceRefusedTheOneItHolds() throws Exception {
        try (TokenEndpoint issuer = new TokenEndpoint("pods", "pod-secret", LIFETIME_S)) {
            ClientCredentialsToken token = token(issuer, secretFile("pod-secret"));
            assertThat(token.current()).isEqualTo("token-1");
            assertThat(token.current()).isEqualTo("token-1");
            token.refused();
            assertThat(token.current()).isEqualTo("token-2");
            assertThat(token.toString()).contains(issuer.tokenUri().toString()).doesNotContain("token-2");
        }
    }

    private ClientCredentialsToken token(TokenEndpoint issuer, Path secretFile) {
        return ClientCredentialsToken.of(new ClientCredentialsToken.Settings(issuer.tokenUri(), "pods",
                () -> Files.readString(secretFile).strip(), "ratelimit:watch", null, ClientAuthenticationMethod.CLIENT_SECRET_BASIC, SKEW,
                Duration.ofSeconds(2), null), RestClient.builder(), clock, registry);
    }

    private Path secretFile(String secret) throws IOException {
        Path file = dir.resolve("client-secret");
        Files.writeString(file, secret + "\n");
        return file;
    }

    private double failures(String reason) {
        return registry.get("tollgate.rules.token.failures").tag("reason", reason).counter().count();
    }
}
