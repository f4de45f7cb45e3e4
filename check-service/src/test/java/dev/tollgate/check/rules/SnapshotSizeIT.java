package dev.tollgate.check.rules;

import dev.tollgate.common.rule.RuleSnapshot;
import dev.tollgate.common.wire.WireFormat;
import dev.tollgate.limiter.rules.SnapshotRuleBook;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A pod reads a snapshot up to a size, as sent and once gunzipped, and never more than its
 * heap's share, so a runaway feed or a gzip bomb cannot take its heap; such a snapshot is refused and counted,
 * and the rules in force stay.
 */
class SnapshotSizeIT {

    private static final String RULE = """
            {"id": "feed-rule", "domain": "public-api", "match": {"plan": "growth"},
             "algorithm": "token_bucket", "rate_per_s": 1, "period_s": 1, "burst": 1, "mode": "enforce",
             "fail_mode": "open", "max_cost": 1, "version": 1}""";
    private static final long LIMIT = 16 * 1024;

    @TempDir
    Path dir;

    @Test
    void aSnapshotThatInflatesPastTheLimitIsRefusedAndTheRulesInForceStay() throws Exception {
        SnapshotRuleBook rules = new SnapshotRuleBook(Clock.systemUTC(), "default", 1.0);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        JsonMapper json = WireFormat.configure(JsonMapper.builder()).build();
        try (FakeWatchFeed feed = new FakeWatchFeed()) {
            RulesFeed transport = RulesFeed.of(RestClient.builder(), new RulesFeed.Settings(URI.create(feed.url()), WatchToken.NONE,
                    Duration.ofSeconds(2), Duration.ofSeconds(5), null, LIMIT));
            RulesWatcher watcher = new RulesWatcher(transport, new RulesWatcher.WatchSettings(dir.resolve("snapshot.json")), rules, json, registry);
            feed.publish(1, snapshot(1, 0));
            watcher.pollOnce();
            assertThat(rules.revision()).hasValue(1);

            // a megabyte of blanks: a few KB gzipped, far past the limit once inflated
            feed.publish(2, "{\"revision\": 2, \"rules\": [" + RULE + "]" + " ".repeat(1 << 20) + ", \"overrides\": [], \"region_budgets\": []}");
            assertThatThrownBy(watcher::pollOnce).isInstanceOf(RulesFeed.SnapshotTooLarge.class).hasMessageContaining("gunzipped");
            assertThat(feed.gzipped()).isTrue();
            assertThat(rules.revision()).as("the last good snapshot stays").hasValue(1);
            assertThat(tooLarge(registry)).isEqualTo(1);
            watcher.close();
        }
    }

    /**
     * A pod of a small heap, restarted on its saved snapshot, is offered one past its heap's share: read, parsed
     * and compiled, it would not fit, and a pod run with ExitOnOutOfMemoryError (as the chart runs it) would die on
     * it, and again after each restart. It refuses it instead, counts it, and keeps enforcing the saved rules.
     */
    @Test
    void aPodOfASmallHeapRefusesASnapshotPastItsHeapsShareAndKeepsItsSavedRules() throws Exception {
        Path saved = dir.resolve("snapshot.json");
        Files.writeString(saved, snapshot(1, 0));
        try (FakeWatchFeed feed = new FakeWatchFeed()) {
            // 28 MB of JSON (200,000 budget rows), 1.4 MB gzipped: more than a 64 MB heap holds parsed beside its body
            feed.publish(2, snapshot(2, 200_000));
            Process pod = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx64m", "-XX:+ExitOnOutOfMemoryError", "-cp", System.getProperty("java.class.path"),
                    SmallHeapPod.class.getName(), feed.url(), saved.toString())
                    .redirectErrorStream(true).start();
            String output = new String(pod.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(pod.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(pod.exitValue()).as(output).isZero();
            assertThat(output).contains("enforcing revision 1, refused as too large: 1");
        }
        JsonMapper json = WireFormat.configure(JsonMapper.builder()).build();
        assertThat(json.readValue(saved.toFile(), RuleSnapshot.class).revision()).as("the saved snapshot stays").isEqualTo(1);
    }

    /** The pod of the test above, in a JVM of its own: its heap is the point. */
    static final class SmallHeapPod {

        public static void main(String[] args) throws Exception {
            SnapshotRuleBook rules = new SnapshotRuleBook(Clock.systemUTC(), "us-east", 1.0);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            JsonMapper json = WireFormat.configure(JsonMapper.builder()).build();
            RulesFeed transport = RulesFeed.of(RestClient.builder(), new RulesFeed.Settings(URI.create(args[0]), WatchToken.NONE,
                    Duration.ofSeconds(2), Duration.ofSeconds(30), null, RulesFeed.DEFAULT_MAX_BYTES));
            try (RulesWatcher watcher = new RulesWatcher(transport, new RulesWatcher.WatchSettings(Path.of(args[1])), rules, json, registry)) {
                watcher.pollOnce();
            } catch (RulesFeed.SnapshotTooLarge e) {
                // the refusal the test expects; anything else fails the pod
            }
            System.out.println("enforcing revision " + rules.revision().orElse(-1) + ", refused as too large: " + (long) tooLarge(registry));
        }
    }

    private static double tooLarge(MeterRegistry registry) {
        return registry.get("tollgate.rules.snapshots.rejected").tag("reason", "too_large").counter().count();
    }

    /** A snapshot of one rule and {@code rows} budget rows of region us-east, each about 120 bytes as rules-service writes them. */
    private static String snapshot(long revision, int rows) {
        StringBuilder json = new StringBuilder(200 + rows * 130)
                .append("{\"revision\": ").append(revision).append(", \"rules\": [").append(RULE).append("], \"overrides\": [], \"region_budgets\": [");
        for (int i = 0; i < rows; i++) {
            json.append(i == 0 ? "" : ",").append("{\"rule_id\":\"feed-rule\",\"limit_key\":\"acct_").append(String.format("%016x", i * 2654435761L))
                    .append("\",\"region\":\"us-east\",\"share\":0.3333333333333333,\"updated_at\":\"2025-01-01T00:00:00Z\"}");
        }
        return json.append("]}").toString();
    }
}
