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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The watch itself: an Error in a poll does not end it, the age of its last good poll shows
 * a pod whose polls fail, and a snapshot that cannot be saved leaves nothing behind beside the saved one.
 */
class RulesWatcherIT {

    private static final String RULE = """
            {"id": "feed-rule", "domain": "public-api", "match": {"plan": "growth"},
             "algorithm": "token_bucket", "rate_per_s": 1, "period_s": 1, "burst": 1, "mode": "enforce",
             "fail_mode": "open", "max_cost": 1, "version": 1}""";

    @TempDir
    Path dir;

    private final SnapshotRuleBook rules = new SnapshotRuleBook(Clock.systemUTC(), "default", 1.0);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final JsonMapper json = WireFormat.configure(JsonMapper.builder()).build();

    @Test
    void anErrorInAPollDoesNotEndTheWatchAndTheAgeOfTheLastGoodPollShowsWhilePollsFail() throws Exception {
        // thrown where the transport is, as a deep parse or a runaway recursion in a poll would throw it
        AtomicBoolean failOnce = new AtomicBoolean();
        AtomicBoolean failing = new AtomicBoolean();
        RestClient.Builder http = RestClient.builder().requestInterceptor((request, body, execution) -> {
            if (failOnce.getAndSet(false) || failing.get()) {
                throw new StackOverflowError("thrown by the test's feed");
            }
            return execution.execute(request, body);
        });
        try (FakeWatchFeed feed = new FakeWatchFeed();
             RulesWatcher watcher = new RulesWatcher(transport(http, feed),
                     new RulesWatcher.WatchSettings(dir.resolve("snapshot.json"), Duration.ofMillis(20), Duration.ofMillis(100), false),
                     rules, json, registry)) {
            feed.publish(1, snapshot(1));
            watcher.start();
            await().atMost(Duration.ofSeconds(5)).until(() -> rules.revision().orElse(-1) == 1);

            failOnce.set(true);
            await().atMost(Duration.ofSeconds(5)).untilFalse(failOnce);
            feed.publish(2, snapshot(2));
            await().atMost(Duration.ofSeconds(5)).until(() -> rules.revision().orElse(-1) == 2);
            assertThat(registry.counter("tollgate.rules.watch.errors").count()).isEqualTo(1);

            // each poll ends within half a second here (the fake feed's 304), so past that the pod's rules are frozen
            failing.set(true);
            await().atMost(Duration.ofSeconds(10)).until(() -> age(registry) > 1.5);
            assertThat(registry.counter("tollgate.rules.watch.errors").count()).isGreaterThan(2);
            failing.set(false);
            await().atMost(Duration.ofSeconds(5)).until(() -> age(registry) < 1.0);
            assertThat(rules.revision()).hasValue(2);
        }
    }

    @Test
    void aSnapshotThatCannotBeSavedLeavesNoTemporaryFileBehind() throws Exception {
        // where the snapshot goes is a directory with a file in it: the temporary file is written, moving it there fails
        Path target = Files.createDirectory(dir.resolve("snapshot.json"));
        Files.writeString(target.resolve("occupied"), "");
        try (FakeWatchFeed feed = new FakeWatchFeed();
             RulesWatcher watcher = new RulesWatcher(transport(RestClient.builder(), feed), new RulesWatcher.WatchSettings(target),
                     rules, json, registry)) {
            feed.publish(1, snapshot(1));
            watcher.pollOnce();
            feed.publish(2, snapshot(2));
            watcher.pollOnce();
        }
        assertThat(rules.revision()).as("enforced, though not saved").hasValue(2);
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files).containsExactly(target);
        }
    }

    private static RulesFeed transport(RestClient.Builder http, FakeWatchFeed feed) {
        return RulesFeed.of(http, new RulesFeed.Settings(URI.create(feed.url()), WatchToken.NONE, Duration.ofSeconds(2), Duration.ofSeconds(5),
                null, RulesFeed.DEFAULT_MAX_BYTES));
    }

    private static double age(MeterRegistry registry) {
        return registry.get("tollgate.rules.watch.age").gauge().value();
    }

    private static String snapshot(long revision) {
        return "{\"revision\": " + revision + ", \"rules\": [" + RULE + "], \"overrides\": [], \"region_budgets\": []}";
    }
}
