package dev.tollgate.check.rules;

import dev.tollgate.common.wire.WireFormat;
import dev.tollgate.limiter.rules.SnapshotRuleBook;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Review L9: a pod reads a snapshot up to a size, as sent and once gunzipped, so a runaway feed or a gzip
 * bomb cannot take its heap; such a snapshot is refused and counted, and the rules in force stay.
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
            feed.publish(1, snapshot(1));
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

    private static double tooLarge(MeterRegistry registry) {
        return registry.get("tollgate.rules.snapshots.rejected").tag("reason", "too_large").counter().count();
    }

    private static String snapshot(long revision) {
        return "{\"revision\": " + revision + ", \"rules\": [" + RULE + "], \"overrides\": [], \"region_budgets\": []}";
    }
}
