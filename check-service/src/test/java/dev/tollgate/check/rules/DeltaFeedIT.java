package dev.tollgate.check.rules;

import dev.tollgate.common.rule.RuleSnapshot;
import dev.tollgate.common.wire.WireFormat;
import dev.tollgate.limiter.rules.SnapshotRuleBook;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A pod on the delta feed: it names its region and revision, applies a delta to what it holds and saves
 * the whole result; a delta whose result fails validation, or that starts at another revision, is refused
 * whole and counted, as is one that cannot be read; the rules in force stay, and the pod asks for a whole
 * snapshot next.
 */
class DeltaFeedIT {

    private static final String RULE_A = rule("rule-a");
    private static final String RULE_B = rule("rule-b");

    @TempDir
    Path dir;

    @Test
    void appliesDeltasWholeAndRefusesOneWhoseResultIsInvalid() throws Exception {
        SnapshotRuleBook rules = new SnapshotRuleBook(Clock.systemUTC(), "eu-west", 0.5);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        JsonMapper json = WireFormat.configure(JsonMapper.builder()).build();
        Path saved = dir.resolve("snapshot.json");
        try (FakeWatchFeed feed = new FakeWatchFeed()) {
            RulesWatcher watcher = new RulesWatcher(transport(feed), new RulesWatcher.WatchSettings(saved), rules, json, registry);
            feed.publish(1, """
                    {"kind": "snapshot", "revision": 1, "region": "eu-west", "rules": [%s],
                     "region_budgets": [{"rule_id": "rule-a", "limit_key": "acct_1", "region": "eu-west", "share": 0.25}]}""".formatted(RULE_A));
            watcher.pollOnce();
            assertThat(feed.lastQuery()).isEqualTo("region=eu-west");
            assertThat(rules.revision()).hasValue(1);

            feed.publish(2, """
                    {"kind": "delta", "from": 1, "revision": 2, "region": "eu-west", "rules": [%s],
                     "deleted": {"region_budgets": [{"rule_id": "rule-a", "limit_key": "acct_1"}]}}""".formatted(RULE_B));
            watcher.pollOnce();
            assertThat(feed.lastQuery()).isEqualTo("region=eu-west&since=1");
            assertThat(rules.revision()).hasValue(2);
            assertThat(rules.find("public-api", "rule-b", "acct_1")).isNotNull();
            assertThat(rules.share(rules.find("public-api", "rule-a", "acct_1"), "acct_1")).as("the budget row went: the default share").isEqualTo(0.5);
            RuleSnapshot onDisk = json.readValue(Files.readAllBytes(saved), RuleSnapshot.class);
            assertThat(onDisk.revision()).isEqualTo(2);
            assertThat(onDisk.rules()).extracting(r -> r.id()).containsExactly("rule-a", "rule-b");
            assertThat(onDisk.regionBudgets()).isEmpty();

            // each part is well-formed, the result is not: an override of a rule the same delta deletes
            feed.publish(3, """
                    {"kind": "delta", "from": 2, "revision": 3, "region": "eu-west", "rules": [],
                     "overrides": [{"account_id": "acct_1", "rule_id": "rule-b", "rate_per_s": 5, "burst": 5}],
                     "deleted": {"rules": ["rule-b"]}}""");
            assertThatThrownBy(watcher::pollOnce).isInstanceOf(IOException.class).hasMessageContaining("refused rules revision 3");
            assertThat(rules.revision()).as("refused whole: the rules in force stay").hasValue(2);
            assertThat(rules.find("public-api", "rule-b", "acct_1")).isNotNull();
            assertThat(rejected(registry, "invalid")).isEqualTo(1);
            assertThat(json.readValue(Files.readAllBytes(saved), RuleSnapshot.class).revision()).isEqualTo(2);

            // next, the pod asks for a whole snapshot; a delta from another revision is refused too
            feed.publish(4, """
                    {"kind": "delta", "from": 3, "revision": 4, "region": "eu-west", "rules": [%s]}""".formatted(RULE_A));
            assertThatThrownBy(watcher::pollOnce).isInstanceOf(IOException.class).hasMessageContaining("holds revision 2");
            assertThat(feed.lastQuery()).isEqualTo("region=eu-west");
            assertThat(rules.revision()).hasValue(2);
            assertThat(rejected(registry, "delta_mismatch")).isEqualTo(1);

            // not a delta at all: no revision to apply it to
            feed.publish(5, """
                    {"kind": "delta", "revision": 5, "region": "eu-west"}""");
            assertThatThrownBy(watcher::pollOnce).isInstanceOf(IOException.class).hasMessageContaining("refused the watch answer");
            assertThat(rejected(registry, "unreadable")).isEqualTo(1);
            assertThat(registry.get("tollgate.rules.snapshots.rejected").counters()).as("each refusal counted once, by its reason")
                    .extracting(Counter::count).containsExactlyInAnyOrder(1.0, 1.0, 1.0, 0.0);
            assertThat(rules.revision()).hasValue(2);

            feed.publish(6, """
                    {"kind": "snapshot", "revision": 6, "region": "eu-west", "rules": [%s]}""".formatted(RULE_A));
            watcher.pollOnce();
            assertThat(rules.revision()).hasValue(6);
            assertThat(rules.find("public-api", "rule-b", "acct_1")).isNull();
            watcher.close();
        }
    }

    /**
     * Both pods hold the canary and save it; the canary pod enforces it in place of its rule, the other pod the rule as
     * promoted, and a rollback (the canary deleted) puts the canary pod back on the rule.
     */
    @Test
    void aCanaryPodEnforcesTheCanaryInPlaceOfItsRuleAndAnyOtherPodTheRule() throws Exception {
        JsonMapper json = WireFormat.configure(JsonMapper.builder()).build();
        SnapshotRuleBook stableRules = new SnapshotRuleBook(Clock.systemUTC(), "eu-west", 0.5);
        SnapshotRuleBook canaryRules = new SnapshotRuleBook(Clock.systemUTC(), "eu-west", 0.5);
        Path canarySaved = dir.resolve("canary.json");
        try (FakeWatchFeed feed = new FakeWatchFeed();
             RulesWatcher stable = new RulesWatcher(transport(feed), new RulesWatcher.WatchSettings(dir.resolve("stable.json")), stableRules,
                     json, new SimpleMeterRegistry());
             RulesWatcher canary = new RulesWatcher(transport(feed), new RulesWatcher.WatchSettings(canarySaved,
                     RulesWatcher.WatchSettings.DEFAULT_RETRY_FIRST, RulesWatcher.WatchSettings.DEFAULT_RETRY_MAX, true), canaryRules, json,
                     new SimpleMeterRegistry())) {
            feed.publish(1, """
                    {"kind": "snapshot", "revision": 1, "region": "eu-west", "rules": [%s]}""".formatted(RULE_A));
            stable.pollOnce();
            canary.pollOnce();
            String canaryVersion = RULE_A.replace("\"burst\": 1", "\"burst\": 7").replace("\"version\": 1", "\"version\": 2");
            feed.publish(2, """
                    {"kind": "delta", "from": 1, "revision": 2, "region": "eu-west", "canaries": [%s]}""".formatted(canaryVersion));
            stable.pollOnce();
            canary.pollOnce();

            assertThat(canaryRules.find("public-api", "rule-a", "acct_1").version()).isEqualTo(2);
            assertThat(stableRules.find("public-api", "rule-a", "acct_1").version()).as("never the canary").isEqualTo(1);
            assertThat(json.readValue(Files.readAllBytes(canarySaved), RuleSnapshot.class).canaries()).as("saved as sent")
                    .extracting(r -> r.version()).containsExactly(2L);
            assertThat(json.readValue(Files.readAllBytes(canarySaved), RuleSnapshot.class).rules()).extracting(r -> r.version()).containsExactly(1L);

            feed.publish(3, """
                    {"kind": "delta", "from": 2, "revision": 3, "region": "eu-west", "deleted": {"canaries": ["rule-a"]}}""");
            canary.pollOnce();
            assertThat(canaryRules.revision()).hasValue(3);
            assertThat(canaryRules.find("public-api", "rule-a", "acct_1").version()).as("rolled back").isEqualTo(1);
        }
    }

    private static RulesFeed transport(FakeWatchFeed feed) {
        return RulesFeed.of(RestClient.builder(), new RulesFeed.Settings(URI.create(feed.url()), WatchToken.NONE,
                Duration.ofSeconds(2), Duration.ofSeconds(5), null, RulesFeed.DEFAULT_MAX_BYTES));
    }

    private static double rejected(MeterRegistry registry, String reason) {
        return registry.get("tollgate.rules.snapshots.rejected").tag("reason", reason).counter().count();
    }

    private static String rule(String id) {
        return """
                {"id": "%s", "domain": "public-api", "match": {"plan": "growth"}, "algorithm": "token_bucket",
                 "rate_per_s": 1, "period_s": 1, "burst": 1, "mode": "enforce", "fail_mode": "open", "max_cost": 1, "version": 1}"""
                .formatted(id);
    }
}
