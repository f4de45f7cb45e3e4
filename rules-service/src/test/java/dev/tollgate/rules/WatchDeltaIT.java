package dev.tollgate.rules;

import dev.tollgate.common.rule.DeltaMerge;
import dev.tollgate.common.rule.RuleChanges;
import dev.tollgate.common.rule.RuleSnapshot;
import dev.tollgate.common.wire.WireFormat;
import dev.tollgate.rules.watch.WatchTombstones;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The delta feed ({@code GET /v1/watch?since=R&region=X}) on the real store: only what changed after R,
 * deletions included, only the pod's region's budget rows; a snapshot when the feed no longer reaches R;
 * and under concurrent writers of every kind a pod that follows it by deltas holds what a snapshot holds.
 */
class WatchDeltaIT extends ServiceTestBase {

    private static final JsonMapper JSON = WireFormat.configure(JsonMapper.builder()).build();

    @Autowired
    WatchTombstones tombstones;

    @Autowired
    TransactionTemplate transactions;

    @Test
    void sendsOnlyWhatChangedSinceTheRevisionAPodHoldsDeletionsIncluded() {
        String domain = uniqueId("delta");
        String rule = uniqueId("r");
        long before = currentRevision();
        api.put("/v1/rules/" + rule, tokenBucket(domain, 100, 200));
        api.post("/v1/overrides", ValidationIT.override("acct_1", rule, 10, 20, null));
        insertBudget(rule, "acct_1", "us-east", 0.6);
        insertBudget(rule, "acct_1", "eu-west", 0.4);
        insertBudget(rule, "acct_2", "us-east", 0.5);
        api.put("/v1/descriptors/" + domain, Api.json("{'descriptors':[{'key':'account','rule':'" + rule + "'}]}"));

        JsonNode created = delta(before, "us-east");
        assertThat(created.get("from").asLong()).isEqualTo(before);
        assertThat(created.get("revision").asLong()).isEqualTo(storeRevision());
        assertThat(created.get("region").asString()).isEqualTo("us-east");
        assertThat(ids(created.get("rules"), "id")).containsExactly(rule);
        assertThat(ids(created.get("overrides"), "account_id")).containsExactly("acct_1");
        assertThat(WatchIT.find(created.get("region_budgets"), "limit_key", "acct_1").get("share").asDouble()).isEqualTo(0.6);
        assertThat(created.get("region_budgets")).as("us-east's rows only").hasSize(2)
                .allSatisfy(budget -> assertThat(budget.get("region").asString()).isEqualTo("us-east"));
        assertThat(ids(created.get("descriptor_domains"), "domain")).containsExactly(domain);

        long held = storeRevision();
        api.delete("/v1/overrides/acct_1/" + rule + "?reason=done");
        jdbc.sql("DELETE FROM region_budgets WHERE rule_id = ? AND limit_key = 'acct_1'").param(rule).update();
        jdbc.sql("UPDATE region_budgets SET share = 0.7 WHERE rule_id = ? AND limit_key = 'acct_2'").param(rule).update();
        api.request("DELETE", "/v1/descriptors/" + domain).ifMatch(1).send();
        api.request("PUT", "/v1/rules/" + rule).ifMatch(1).body(tokenBucket(domain, 300, 300)).send();

        JsonNode changed = delta(held, "us-east");
        assertThat(ids(changed.get("rules"), "id")).containsExactly(rule);
        assertThat(changed.get("rules").get(0).get("rate_per_s").asInt()).isEqualTo(300);
        assertThat(changed.get("overrides")).isEmpty();
        assertThat(changed.get("region_budgets")).hasSize(1);
        assertThat(changed.get("region_budgets").get(0).get("share").asDouble()).isEqualTo(0.7);
        assertThat(changed.get("descriptor_domains")).isEmpty();
        JsonNode deleted = changed.get("deleted");
        assertThat(deleted.get("rules")).isEmpty();
        assertThat(ids(deleted.get("overrides"), "account_id")).containsExactly("acct_1");
        assertThat(ids(deleted.get("region_budgets"), "limit_key")).as("us-east's deletion only").containsExactly("acct_1");
        assertThat(deleted.get("descriptor_domains")).hasSize(1);
        assertThat(deleted.get("descriptor_domains").get(0).asString()).isEqualTo(domain);

        long last = storeRevision();
        api.request("DELETE", "/v1/rules/" + rule).ifMatch(2).send();
        JsonNode gone = delta(last, "us-east");
        assertThat(gone.get("deleted").get("rules").get(0).asString()).isEqualTo(rule);
        assertThat(gone.get("deleted").get("region_budgets")).as("the rule's rows go with it on the pod; none is listed").isEmpty();
    }

    @Test
    void aRegionsSnapshotCarriesItsOwnBudgetsAndAnOlderPodStillGetsEveryRegion() {
        String rule = uniqueId("r");
        api.put("/v1/rules/" + rule, tokenBucket("public-api", 100, 200));
        insertBudget(rule, "acct_1", "us-east", 0.6);
        insertBudget(rule, "acct_1", "eu-west", 0.4);

        JsonNode snapshot = api.get("/v1/watch?region=eu-west").json();
        assertThat(snapshot.get("kind").asString()).isEqualTo("snapshot");
        assertThat(snapshot.has("from")).isFalse();
        assertThat(snapshot.get("region_budgets")).isNotEmpty()
                .allSatisfy(budget -> assertThat(budget.get("region").asString()).isEqualTo("eu-west"));
        assertThat(WatchIT.find(snapshot.get("rules"), "id", rule)).isNotNull();

        JsonNode legacy = api.get("/v1/watch").json();
        assertThat(legacy.has("kind")).isFalse();
        assertThat(WatchIT.find(legacy.get("region_budgets"), "rule_id", rule, "region", "us-east")).isNotNull();
        assertThat(WatchIT.find(legacy.get("region_budgets"), "rule_id", rule, "region", "eu-west")).isNotNull();
    }

    @Test
    void aPodBehindWhatTheFeedKeepsOrAheadOfTheStoreIsSentASnapshot() {
        long before = currentRevision();
        String rule = uniqueId("r");
        api.put("/v1/rules/" + rule, tokenBucket("public-api", 100, 200));
        api.request("DELETE", "/v1/rules/" + rule).ifMatch(1).send();
        assertThat(delta(before, "us-east").get("deleted").get("rules").get(0).asString()).isEqualTo(rule);

        // as the poller does once the tombstone is older than tollgate.watch.keep
        long oldest = tombstones.prune(Instant.now().plus(Duration.ofDays(1)));
        assertThat(oldest).isGreaterThan(before);
        // (the delta already built stays a right answer at its revision; the next revision is built afresh)
        api.put("/v1/rules/" + uniqueId("r"), tokenBucket("public-api", 100, 200));
        currentRevision();

        JsonNode answer = api.get("/v1/watch?since=" + before + "&region=us-east").json();
        assertThat(answer.get("kind").asString()).isEqualTo("snapshot");
        assertThat(answer.get("revision").asLong()).isEqualTo(storeRevision());
        assertThat(WatchIT.find(answer.get("rules"), "id", rule)).isNull();

        JsonNode ahead = api.get("/v1/watch?since=" + (storeRevision() + 1000) + "&region=us-east").json();
        assertThat(ahead.get("kind").asString()).as("a store restored from an older copy: follow it back").isEqualTo("snapshot");
    }

    @Test
    void wakesAWaitingPodWithTheDeltaOfARebalancerWrite() {
        String rule = uniqueId("r");
        api.put("/v1/rules/" + rule, tokenBucket("public-api", 100, 200));
        long revision = currentRevision();
        CompletableFuture<Api.Response> waiting = api.request("GET", "/v1/watch?since=" + revision + "&region=us-east").sendAsync();
        sleep(200);

        // as BudgetStore writes: advance_revision() first, then the rows, in one transaction
        transactions.executeWithoutResult(tx -> {
            jdbc.sql("SELECT advance_revision()").query(Long.class).single();
            insertBudget(rule, "acct_9", "us-east", 0.3);
            insertBudget(rule, "acct_9", "eu-west", 0.7);
        });
        Api.Response feed = waiting.join();

        assertThat(feed.status).isEqualTo(200);
        JsonNode delta = feed.json();
        assertThat(delta.get("kind").asString()).isEqualTo("delta");
        assertThat(delta.get("rules")).isEmpty();
        assertThat(delta.get("region_budgets")).hasSize(1);
        assertThat(delta.get("region_budgets").get(0).get("share").asDouble()).isEqualTo(0.3);
    }

    @Test
    void refusesABadRegion() {
        Api.Response blank = api.get("/v1/watch?region=%20");
        assertThat(blank.status).isEqualTo(400);
        assertThat(blank.json().get("code").asString()).isEqualTo("bad_request");
        assertThat(api.get("/v1/watch?region=a%01b").status).isEqualTo(400);
    }

    /**
     * Writers of every kind (the rules API, transactions as the rebalancer's or a person's with psql)
     * change rules, overrides and budget rows of two regions at once, while a pod per region follows the
     * feed by deltas; after each burst, each pod holds exactly the snapshot of its region.
     */
    @Test
    void podsFollowingByDeltasHoldTheSnapshotWhileWritersRace() throws Exception {
        long seed = System.nanoTime();
        List<String> rules = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            rules.add(uniqueId("fuzz"));
        }
        for (int burst = 0; burst < 4; burst++) {
            AtomicBoolean writing = new AtomicBoolean(true);
            AtomicInteger writes = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(5);
            try {
                List<Future<?>> writers = new ArrayList<>();
                for (int w = 0; w < 3; w++) {
                    Random random = new Random(seed + burst * 31L + w);
                    writers.add(pool.submit(() -> {
                        while (writing.get()) {
                            try {
                                write(random, rules);
                                writes.incrementAndGet();
                            } catch (RuntimeException e) {
                                // a write refused (a rule deleted under it, a 409): the store decides, the pods follow
                            }
                        }
                    }));
                }
                Follower east = new Follower("us-east");
                Follower west = new Follower("eu-west");
                Future<?> eastPolls = pool.submit(() -> east.followWhile(writing));
                Future<?> westPolls = pool.submit(() -> west.followWhile(writing));
                sleep(3_000);
                writing.set(false);
                for (Future<?> writer : writers) {
                    writer.get(30, TimeUnit.SECONDS);
                }
                eastPolls.get(30, TimeUnit.SECONDS);
                westPolls.get(30, TimeUnit.SECONDS);
                assertThat(writes.get()).as("burst %d (seed %d) wrote", burst, seed).isPositive();
                for (Follower pod : List.of(east, west)) {
                    pod.catchUp(storeRevision());
                    RuleSnapshot fresh = RuleChanges.snapshot(snapshotOf(pod.region), pod.region).toSnapshot();
                    assertThat(pod.held.revision()).isEqualTo(fresh.revision());
                    assertThat(pod.deltas).as("%s followed by deltas", pod.region).isPositive();
                    assertThat(pod.held.rules()).as("seed %d", seed).containsExactlyInAnyOrderElementsOf(fresh.rules());
                    assertThat(pod.held.overrides()).as("seed %d", seed).containsExactlyInAnyOrderElementsOf(fresh.overrides());
                    assertThat(pod.held.regionBudgets()).as("seed %d", seed).containsExactlyInAnyOrderElementsOf(fresh.regionBudgets());
                    assertThat(pod.held.descriptorDomains()).as("seed %d", seed).containsExactlyInAnyOrderElementsOf(fresh.descriptorDomains());
                }
            } finally {
                writing.set(false);
                pool.shutdownNow();
            }
        }
    }

    /** A pod as RulesWatcher follows the feed: snapshot first, then deltas merged into what it holds. */
    private final class Follower {

        final String region;
        RuleSnapshot held;
        int deltas;

        Follower(String region) {
            this.region = region;
        }

        void followWhile(AtomicBoolean writing) {
            while (writing.get()) {
                pollOnce();
            }
        }

        void catchUp(long revision) {
            for (int i = 0; i < 50 && (held == null || held.revision() != revision); i++) {
                pollOnce();
            }
        }

        private void pollOnce() {
            String since = held == null ? "" : "&since=" + held.revision();
            Api.Response response = api.get("/v1/watch?region=" + region + since);
            if (response.status == 304) {
                return;
            }
            assertThat(response.status).as(response.body).isEqualTo(200);
            RuleChanges changes = JSON.readValue(response.body, RuleChanges.class);
            if (!changes.replacesAll()) {
                deltas++;
            }
            held = DeltaMerge.apply(held, changes, clock.instant());
        }
    }

    private void write(Random random, List<String> rules) {
        String rule = rules.get(random.nextInt(rules.size()));
        if (random.nextInt(8) == 0) {
            api.put("/v1/rules/" + rule, tokenBucket("public-api", 1 + random.nextInt(1000), 1000));
            return;
        }
        // the store's write lock first, as every writer of the store takes it (V1): one that locks a row first
        // can deadlock with the API, and PostgreSQL then aborts one of them
        transactions.executeWithoutResult(tx -> {
            jdbc.sql("SELECT advance_revision()").query(Long.class).single();
            writeRows(random, rule);
        });
    }

    private void writeRows(Random random, String rule) {
        String key = "acct_" + random.nextInt(6);
        switch (random.nextInt(8)) {
            case 1 -> jdbc.sql("DELETE FROM rules WHERE rule_id = ?").param(rule).update();
            case 2 -> jdbc.sql("INSERT INTO overrides (account_id, rule_id, rate_per_s, burst) VALUES (?, ?, ?, 5)"
                            + " ON CONFLICT (account_id, rule_id) DO UPDATE SET rate_per_s = EXCLUDED.rate_per_s")
                    .params(key, rule, 1 + random.nextInt(50)).update();
            case 3 -> jdbc.sql("DELETE FROM overrides WHERE account_id = ? AND rule_id = ?").params(key, rule).update();
            case 4 -> jdbc.sql("DELETE FROM region_budgets WHERE rule_id = ? AND limit_key = ?").params(rule, key).update();
            case 6 -> {
                // gone and back at one revision: its overrides and budget rows stay gone
                jdbc.sql("DELETE FROM rules WHERE rule_id = ?").param(rule).update();
                jdbc.sql("INSERT INTO rules (rule_id, domain, match_plan, algorithm, rate_per_s, burst)"
                        + " VALUES (?, 'public-api', 'growth', 'token_bucket', ?, 1000)").params(rule, 1 + random.nextInt(1000)).update();
            }
            case 5 -> jdbc.sql("UPDATE rules SET rate_per_s = ?, version = version + 1 WHERE rule_id = ?")
                    .params(1 + random.nextInt(1000), rule).update();
            default -> {
                // as the rebalancer writes a cycle: both regions' rows of a few keys in one transaction
                for (int i = 0; i < 1 + random.nextInt(4); i++) {
                    double east = 0.1 + random.nextInt(8) / 10.0;
                    String budgetKey = "acct_" + random.nextInt(6);
                    upsertBudget(rule, budgetKey, "us-east", east);
                    upsertBudget(rule, budgetKey, "eu-west", 1.0 - east);
                }
            }
        }
    }

    private RuleSnapshot snapshotOf(String region) {
        return JSON.readValue(api.get("/v1/watch?region=" + region).body, RuleChanges.class).toSnapshot();
    }

    private JsonNode delta(long since, String region) {
        Api.Response response = api.get("/v1/watch?since=" + since + "&region=" + region);
        assertThat(response.status).as(response.body).isEqualTo(200);
        JsonNode answer = response.json();
        assertThat(answer.get("kind").asString()).isEqualTo("delta");
        return answer;
    }

    /** The store revision once this instance's poller serves it, so a {@code since} of it is really "now". */
    private long currentRevision() {
        long revision = storeRevision();
        for (int i = 0; i < 100; i++) {
            if (api.get("/v1/watch?region=us-east").json().get("revision").asLong() == revision) {
                sleep(100);
                return revision;
            }
            sleep(20);
            revision = storeRevision();
        }
        throw new AssertionError("the feed never caught up with revision " + revision);
    }

    private void insertBudget(String rule, String key, String region, double share) {
        jdbc.sql("INSERT INTO region_budgets (rule_id, limit_key, region, share) VALUES (?, ?, ?, ?)").params(rule, key, region, share).update();
    }

    private void upsertBudget(String rule, String key, String region, double share) {
        jdbc.sql("INSERT INTO region_budgets (rule_id, limit_key, region, share) SELECT ?, ?, ?, ? WHERE EXISTS"
                        + " (SELECT 1 FROM rules WHERE rule_id = ?)"
                        + " ON CONFLICT (rule_id, limit_key, region) DO UPDATE SET share = EXCLUDED.share, updated_at = now()")
                .params(rule, key, region, share, rule).update();
    }

    private static List<String> ids(JsonNode array, String field) {
        List<String> ids = new ArrayList<>();
        for (JsonNode element : array) {
            ids.add(element.get(field).asString());
        }
        return ids;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
