package dev.tollgate.rules;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The constraints in db/migration, against any writer that is not rules-service: the schema is the
 * last line between a person with psql (or the rebalancer) and every pod.
 */
class RulesStoreSchemaIT extends ServiceTestBase {

    @Autowired
    TransactionTemplate transactions;

    @Test
    void refusesARuleThatMatchesEverything() {
        assertThatThrownBy(() -> insertRule(uniqueId("s"), null, "*", "token_bucket", 10, 10, 1))
                .hasStackTraceContaining("rules_match_not_everything");
    }

    @Test
    void refusesAZeroRateAndABurstBelowTheLargestCost() {
        assertThatThrownBy(() -> insertRule(uniqueId("s"), "growth", null, "token_bucket", 0, 10, 1)).hasStackTraceContaining("rate_per_s");
        assertThatThrownBy(() -> insertRule(uniqueId("s"), "growth", null, "token_bucket", 10, 5, 10))
                .hasStackTraceContaining("rules_token_bucket_fields");
        assertThatThrownBy(() -> insertRule(uniqueId("s"), "growth", null, "leaky_bucket", 10, 10, 1)).hasStackTraceContaining("algorithm");
    }

    @Test
    void keepsRegionSharesAboveZeroAndAtMostOne() {
        String id = uniqueId("s");
        insertRule(id, "growth", null, "token_bucket", 10, 10, 1);

        assertThatThrownBy(() -> insertShare(id, "us-east", 0.0)).hasStackTraceContaining("share");
        assertThatThrownBy(() -> insertShare(id, "us-east", 1.01)).hasStackTraceContaining("share");
        assertThatThrownBy(() -> insertShare(id, "us-east", Double.NaN)).hasStackTraceContaining("share");
        insertShare(id, "us-east", 1.0);
    }

    @Test
    void keepsTheHistoryAppendOnly() {
        api.put("/v1/rules/" + uniqueId("s"), tokenBucket("public-api", 1, 1));

        assertThatThrownBy(() -> jdbc.sql("UPDATE rule_history SET changed_by = 'someone else'").update())
                .hasStackTraceContaining("rule_history is append-only");
        assertThatThrownBy(() -> jdbc.sql("DELETE FROM rule_history").update()).hasStackTraceContaining("rule_history is append-only");
    }

    @Test
    void advancesTheRevisionOncePerTransactionWhoeverWrites() {
        String id = uniqueId("s");
        insertRule(id, "growth", null, "token_bucket", 10, 10, 1);
        long before = storeRevision();

        transactions.executeWithoutResult(tx -> {
            insertShare(id, "us-east", 0.6);
            insertShare(id, "eu-west", 0.4);
            jdbc.sql("UPDATE region_budgets SET share = 0.5 WHERE rule_id = ?").param(id).update();
        });

        assertThat(storeRevision()).isEqualTo(before + 1);
    }

    @Test
    void aCanaryIsAboveItsRulesVersionAndGoesWithItsRuleLeavingATombstone() {
        String id = uniqueId("s");
        insertRule(id, "growth", null, "token_bucket", 10, 10, 1);
        assertThatThrownBy(() -> insertCanary(id, 1, 1)).hasStackTraceContaining("rule_canaries_above_base");
        insertCanary(id, 1, 2);
        long before = storeRevision();

        jdbc.sql("DELETE FROM rules WHERE rule_id = ?").param(id).update();

        assertThat(jdbc.sql("SELECT count(*) FROM rule_canaries WHERE rule_id = ?").param(id).query(Long.class).single()).isZero();
        assertThat(jdbc.sql("SELECT count(*) FROM watch_tombstones WHERE rule_id = ? AND entity = 'rule_canary' AND revision > ?")
                .params(id, before).query(Long.class).single()).isEqualTo(1);
    }

    private void insertCanary(String id, long base, long version) {
        jdbc.sql("INSERT INTO rule_canaries (rule_id, base_version, version, body) VALUES (?, ?, ?, CAST(? AS jsonb))")
                .params(id, base, version, "{\"id\":\"" + id + "\"}").update();
    }

    private void insertRule(String id, String plan, String route, String algorithm, int rate, int burst, int maxCost) {
        jdbc.sql("INSERT INTO rules (rule_id, domain, match_plan, match_route, algorithm, rate_per_s, burst, max_cost)"
                        + " VALUES (?, 'public-api', ?, ?, ?, ?, ?, ?)")
                .params(id, plan, route, algorithm, rate, burst, maxCost)
                .update();
    }

    private void insertShare(String id, String region, double share) {
        jdbc.sql("INSERT INTO region_budgets (rule_id, limit_key, region, share) VALUES (?, 'acct_1', ?, ?)")
                .params(id, region, share).update();
    }
}
