package dev.tollgate.rules.watch;

import dev.tollgate.common.rule.RuleChanges;
import dev.tollgate.rules.change.Columns;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The rows that went, as V3's triggers record them ({@code watch_tombstones}), and how far back the feed
 * can answer with a delta ({@code watch_feed.oldest_revision}).
 */
@Repository
public class WatchTombstones {

    /**
     * Keys that went after {@code :since} and are not back: a key written again since is among the
     * upserts, at a revision at least its tombstone's. A rule's overrides, budget rows and canary are left out
     * when the rule itself is gone (the pod drops them with it), so deleting a rule of a million keys
     * sends one id, not a million. Only {@code :region}'s budget rows.
     */
    private static final String GONE = """
            SELECT DISTINCT t.entity, t.rule_id, t.account_id
              FROM watch_tombstones t
             WHERE t.revision > :since
               AND (t.entity <> 'region_budget' OR t.region = :region)
               AND CASE t.entity
                   WHEN 'rule' THEN NOT EXISTS (SELECT 1 FROM rules r WHERE r.rule_id = t.rule_id)
                   WHEN 'descriptor_domain' THEN NOT EXISTS (SELECT 1 FROM descriptor_domains d WHERE d.domain = t.rule_id)
                   WHEN 'rule_canary' THEN EXISTS (SELECT 1 FROM rules r WHERE r.rule_id = t.rule_id)
                        AND NOT EXISTS (SELECT 1 FROM rule_canaries c WHERE c.rule_id = t.rule_id)
                   WHEN 'override' THEN EXISTS (SELECT 1 FROM rules r WHERE r.rule_id = t.rule_id)
                        AND NOT EXISTS (SELECT 1 FROM overrides o WHERE o.account_id = t.account_id AND o.rule_id = t.rule_id)
                   ELSE EXISTS (SELECT 1 FROM rules r WHERE r.rule_id = t.rule_id)
                        AND NOT EXISTS (SELECT 1 FROM region_budgets b
                                         WHERE b.rule_id = t.rule_id AND b.limit_key = t.account_id AND b.region = t.region)
                   END
             ORDER BY t.entity, t.rule_id, t.account_id""";

    /**
     * Tombstones recorded before {@code :before} go, up to the newest such revision, and the feed's
     * oldest revision moves there. Every tombstone at or below that revision has committed (revisions
     * commit in order), so none is left behind below the new oldest revision. (A data-modifying WITH
     * runs whether or not the UPDATE reads it.)
     */
    private static final String PRUNE = """
            WITH cut AS (SELECT max(revision) AS revision FROM watch_tombstones WHERE recorded_at < :before),
                 gone AS (DELETE FROM watch_tombstones WHERE revision <= (SELECT revision FROM cut) RETURNING 1)
            UPDATE watch_feed SET oldest_revision = (SELECT revision FROM cut)
             WHERE (SELECT revision FROM cut) > oldest_revision""";

    private final JdbcClient jdbc;

    WatchTombstones(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** The oldest {@code since} the feed answers with a delta; an older one gets a snapshot. */
    long oldestRevision() {
        return jdbc.sql("SELECT oldest_revision FROM watch_feed").query(Long.class).single();
    }

    /** What went after {@code since}, in {@code region} for budget rows. */
    RuleChanges.Deleted goneSince(long since, String region) {
        List<String> rules = new ArrayList<>();
        List<RuleChanges.OverrideKey> overrides = new ArrayList<>();
        List<RuleChanges.BudgetKey> budgets = new ArrayList<>();
        List<String> domains = new ArrayList<>();
        List<String> canaries = new ArrayList<>();
        jdbc.sql(GONE).param("since", since).param("region", region).query(rs -> {
            String ruleId = rs.getString("rule_id");
            String accountId = rs.getString("account_id");
            switch (rs.getString("entity")) {
                case "rule" -> rules.add(ruleId);
                case "override" -> overrides.add(new RuleChanges.OverrideKey(accountId, ruleId));
                case "region_budget" -> budgets.add(new RuleChanges.BudgetKey(ruleId, accountId));
                case "rule_canary" -> canaries.add(ruleId);
                default -> domains.add(ruleId);
            }
        });
        return new RuleChanges.Deleted(rules, overrides, budgets, domains, canaries);
    }

    /** Forgets what went before {@code before}; answers the feed's oldest revision after. */
    public long prune(Instant before) {
        jdbc.sql(PRUNE).param("before", Columns.timestamp(before)).update();
        return oldestRevision();
    }
}
