package dev.tollgate.rules;

import dev.tollgate.rules.metrics.RulesMetrics;
import dev.tollgate.rules.watch.WatchTombstones;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whatever {@code since} or region a watch token asks, the answers are built once per question that has
 * a distinct answer, and what the service holds for sharing stays bounded. Builds and held answers are
 * counted by the service's own meters, on the real store.
 */
class WatchAnswerSharingIT extends ServiceTestBase {

    /** FeedAnswers' bound on the answers it holds. */
    private static final int HELD_AT_MOST = 16;

    @Autowired
    MeterRegistry meters;

    @Autowired
    WatchTombstones tombstones;

    @Test
    void staleAndFutureRevisionsShareOneSnapshotBuildAndHoldNoCopyOfTheirOwn() {
        String region = uniqueId("t6");
        String rule = uniqueId("r");
        api.put("/v1/rules/" + rule, tokenBucket("public-api", 100, 200));
        insertBudget(rule, "acct_kept", region, 0.5);
        while (storeRevision() < 60) {
            jdbc.sql("SELECT advance_revision()").query(Long.class).single();
        }
        // a deletion to prune: the feed then answers deltas only from its revision on, and 50 revisions lie below it
        insertBudget(rule, "acct_gone", region, 0.5);
        jdbc.sql("DELETE FROM region_budgets WHERE rule_id = ? AND limit_key = 'acct_gone'").param(rule).update();
        long oldest = tombstones.prune(Instant.now().plus(Duration.ofDays(1)));
        long revision = servedRevision();
        assertThat(oldest).isGreaterThan(50);
        double built = built("snapshot");
        double held = held();

        List<CompletableFuture<Api.Response>> asks = new ArrayList<>();
        for (int i = 1; i <= 50; i++) {
            asks.add(api.request("GET", "/v1/watch?region=" + region + "&since=" + (oldest - i)).sendAsync());
            asks.add(api.request("GET", "/v1/watch?region=" + region + "&since=" + (1_000_000_000_000L + i)).sendAsync());
        }

        for (CompletableFuture<Api.Response> ask : asks) {
            Api.Response answer = ask.join();
            assertThat(answer.status).as(answer.body).isEqualTo(200);
            JsonNode snapshot = answer.json();
            assertThat(snapshot.get("kind").asString()).isEqualTo("snapshot");
            assertThat(snapshot.has("from")).isFalse();
            assertThat(snapshot.get("revision").asLong()).isEqualTo(revision);
            assertThat(snapshot.get("region").asString()).isEqualTo(region);
            assertThat(WatchIT.find(snapshot.get("region_budgets"), "limit_key", "acct_kept")).isNotNull();
            assertThat(WatchIT.find(snapshot.get("region_budgets"), "limit_key", "acct_gone")).isNull();
        }
        assertThat(built("snapshot") - built).as("snapshots built for 50 stale and 50 future revisions").isEqualTo(1);
        assertThat(held()).as("answers held").isLessThanOrEqualTo(held + 1);
    }

    @Test
    void aDeltaIsStillADeltaAndPodsAskingItAtOnceShareOneBuild() {
        String region = uniqueId("delta");
        String rule = uniqueId("r");
        api.put("/v1/rules/" + rule, tokenBucket("public-api", 100, 200));
        long from = servedRevision();
        insertBudget(rule, "acct_moved", region, 0.3);
        long revision = servedRevision();
        double built = built("delta");

        List<CompletableFuture<Api.Response>> asks = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            asks.add(api.request("GET", "/v1/watch?region=" + region + "&since=" + from).sendAsync());
        }

        for (CompletableFuture<Api.Response> ask : asks) {
            Api.Response answer = ask.join();
            assertThat(answer.status).as(answer.body).isEqualTo(200);
            JsonNode delta = answer.json();
            assertThat(delta.get("kind").asString()).isEqualTo("delta");
            assertThat(delta.get("from").asLong()).isEqualTo(from);
            assertThat(delta.get("revision").asLong()).isEqualTo(revision);
            assertThat(delta.get("rules")).isEmpty();
            assertThat(delta.get("region_budgets")).hasSize(1);
            assertThat(delta.get("region_budgets").get(0).get("share").asDouble()).isEqualTo(0.3);
        }
        assertThat(built("delta") - built).as("deltas built for 20 pods asking the same").isEqualTo(1);
    }

    @Test
    void theAnswersHeldStayBoundedHoweverManyDistinctQuestionsAreAsked() {
        String rule = uniqueId("r");
        api.put("/v1/rules/" + rule, tokenBucket("public-api", 100, 200));
        for (int i = 0; i < 30; i++) {
            jdbc.sql("SELECT advance_revision()").query(Long.class).single();
        }
        long revision = servedRevision();
        List<String> regions = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            regions.add(uniqueId("region"));
        }

        for (String region : regions) {
            assertThat(api.get("/v1/watch?region=" + region).json().get("kind").asString()).isEqualTo("snapshot");
        }
        for (int back = 1; back <= 30; back++) {
            JsonNode delta = api.get("/v1/watch?region=" + regions.get(0) + "&since=" + (revision - back)).json();
            assertThat(delta.get("kind").asString()).isEqualTo("delta");
            assertThat(delta.get("from").asLong()).isEqualTo(revision - back);
        }

        assertThat(held()).as("answers held after 70 distinct questions").isLessThanOrEqualTo(HELD_AT_MOST);
        // one let go is built again when asked
        JsonNode again = api.get("/v1/watch?region=" + regions.get(1)).json();
        assertThat(again.get("kind").asString()).isEqualTo("snapshot");
        assertThat(again.get("revision").asLong()).isEqualTo(revision);
    }

    /** The store revision, once this instance's poller serves it: a {@code since} below it is answered at once. */
    private long servedRevision() {
        long revision = storeRevision();
        for (int i = 0; i < 100; i++) {
            if (api.get("/v1/watch").json().get("revision").asLong() == revision) {
                // the legacy answer reads the store itself; three poll periods more and the poller has served it too
                sleep(150);
                return revision;
            }
            sleep(20);
            revision = storeRevision();
        }
        throw new AssertionError("the feed never caught up with revision " + revision);
    }

    private double built(String kind) {
        Counter counter = meters.find(RulesMetrics.WATCH_ANSWERS_BUILT).tag("kind", kind).counter();
        return counter == null ? 0 : counter.count();
    }

    private double held() {
        return meters.get(RulesMetrics.WATCH_ANSWERS_HELD).gauge().value();
    }

    private void insertBudget(String rule, String key, String region, double share) {
        jdbc.sql("INSERT INTO region_budgets (rule_id, limit_key, region, share) VALUES (?, ?, ?, ?)").params(rule, key, region, share).update();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
