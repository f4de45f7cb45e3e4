package dev.tollgate.check.rules;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.web.client.RestClient;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The watch feed's transport against a feed on loopback: what it sends, what it gives back, what it refuses. */
class RulesFeedIT {

    private static final String SNAPSHOT = "{\"revision\": 3, \"rules\": [], \"overrides\": [], \"region_budgets\": []}";

    @Test
    void sendsTheTokenAndTheRevisionItHoldsAndGivesBackTheBodyGunzipped() throws Exception {
        try (FakeWatchFeed feed = new FakeWatchFeed()) {
            feed.publish(3, SNAPSHOT);
            RulesFeed transport = feed(feed.url(), WatchToken.fixed("watch-token"), 1 << 20, RestClient.builder());

            RulesFeed.Answer first = transport.poll(OptionalLong.empty(), "us-east");
            assertThat(first.status()).isEqualTo(200);
            assertThat(new String(first.body(), StandardCharsets.UTF_8)).isEqualTo(SNAPSHOT);
            assertThat(feed.gzipped()).as("asked for gzip and read it").isTrue();
            assertThat(feed.lastAuthorization()).isEqualTo("Bearer watch-token");
            assertThat(feed.lastQuery()).isEqualTo("region=us-east");

            RulesFeed.Answer unchanged = transport.poll(OptionalLong.of(3), "us-east");
            assertThat(unchanged.status()).isEqualTo(304);
            assertThat(unchanged.body()).isEmpty();
            assertThat(feed.lastQuery()).isEqualTo("region=us-east&since=3");
        }
    }

    @Test
    void refusesABodyThatDeclaresMoreThanTheLimitBeforeReadingIt() throws Exception {
        try (FakeWatchFeed feed = new FakeWatchFeed()) {
            feed.sendPlain();
            feed.publish(1, SNAPSHOT.replace("\"rules\"", " ".repeat(4096) + "\"rules\""));
            RulesFeed transport = feed(feed.url(), WatchToken.NONE, 1024, RestClient.builder());
            assertThatThrownBy(() -> transport.poll(OptionalLong.empty(), "us-east"))
                    .isInstanceOf(RulesFeed.SnapshotTooLarge.class).hasMessageContaining("declares 4").hasMessageContaining("1024 bytes");
        }
    }

    @Test
    void refusesABodyOverTheLimitAsSent() throws Exception {
        try (FakeWatchFeed feed = new FakeWatchFeed()) {
            feed.sendPlain();
            // no Content-Length to go by: counted as it is read
            feed.sendChunked();
            feed.publish(1, SNAPSHOT.replace("\"rules\"", " ".repeat(4096) + "\"rules\""));
            RulesFeed transport = feed(feed.url(), WatchToken.NONE, 1024, RestClient.builder());
            assertThatThrownBy(() -> transport.poll(OptionalLong.empty(), "us-east"))
                    .isInstanceOf(RulesFeed.SnapshotTooLarge.class).hasMessageContaining("1024 bytes as sent");
        }
    }

    @Test
    void aPollIsAnHttpClientObservationWithOneUriSeriesWhateverTheRevision() throws Exception {
        MeterRegistry meters = new SimpleMeterRegistry();
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
        try (FakeWatchFeed feed = new FakeWatchFeed()) {
            feed.publish(3, SNAPSHOT);
            RulesFeed transport = feed(feed.url(), WatchToken.NONE, 1 << 20, RestClient.builder().observationRegistry(observations));
            transport.poll(OptionalLong.of(1), "us-east");
            transport.poll(OptionalLong.of(2), "us-east");
            assertThat(meters.get("http.client.requests").tag("uri", "/v1/watch?region={region}&since={since}").tag("status", "200").timer().count())
                    .isEqualTo(2);
        }
    }

    @Test
    void anUnreachableServiceIsAnIoFailure() throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        RulesFeed transport = feed("http://127.0.0.1:" + closed, WatchToken.NONE, 1024, RestClient.builder());
        assertThatThrownBy(() -> transport.poll(OptionalLong.empty(), "us-east")).isInstanceOf(IOException.class);
    }

    private static RulesFeed feed(String url, WatchToken token, long maxBytes, RestClient.Builder builder) {
        return RulesFeed.of(builder, new RulesFeed.Settings(URI.create(url), token, Duration.ofSeconds(2), Duration.ofSeconds(5), null, maxBytes));
    }
}
