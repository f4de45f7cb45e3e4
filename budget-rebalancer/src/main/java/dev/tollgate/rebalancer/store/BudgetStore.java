package dev.tollgate.rebalancer.store;

import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Algorithm;
import dev.tollgate.common.rule.Identity;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.rebalancer.budget.BudgetKey;
import dev.tollgate.rebalancer.budget.Plan;
import dev.tollgate.rebalancer.budget.StoredBudgets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code region_budgets} table, read and written over the lock's connection (see {@link LeaderLock}).
 *
 * <p>A cycle's changes are one transaction that first calls {@code advance_revision()}: that takes the
 * store revision's row lock before any budget row, as every writer of the rules store does, so writers
 * never deadlock, and pods see the whole cycle at one new revision through the watch feed or none of it.
 * Rows are upserted and deleted from arrays ({@code unnest}), thousands per statement.
 */
public final class BudgetStore {

    private static final Logger log = LoggerFactory.getLogger(BudgetStore.class);
    /** Keys per statement: with three regions, 15,000 rows in four array parameters. */
    static final int KEYS_PER_STATEMENT = 5_000;

    private static final String UPSERT = """
            INSERT INTO region_budgets (rule_id, limit_key, region, share, updated_at)
            SELECT v.rule_id, v.limit_key, v.region, v.share, ?
              FROM unnest(?::text[], ?::text[], ?::text[], ?::float8[]) AS v(rule_id, limit_key, region, share)
              -- a rule deleted since the cycle read the rules: skip its rows rather than fail the cycle
              JOIN rules r ON r.rule_id = v.rule_id
            ON CONFLICT (rule_id, limit_key, region) DO UPDATE SET share = EXCLUDED.share, updated_at = EXCLUDED.updated_at""";
    private static final String DELETE = """
            DELETE FROM region_budgets b
             USING unnest(?::text[], ?::text[]) AS d(rule_id, limit_key)
             WHERE b.rule_id = d.rule_id AND b.limit_key = d.limit_key""";

    private final List<String> regions;
    private final Map<String, Integer> regionIndex = new HashMap<>();

    /** @param regions the regions in the budget split's order */
    public BudgetStore(List<String> regions) {
        this.regions = List.copyOf(regions);
        for (int i = 0; i < regions.size(); i++) {
            regionIndex.put(regions.get(i), i);
        }
    }

    /** The store revision now: a cheap way to tell whether anyone else changed the store. */
    public long revision(Connection connection) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT revision FROM store_revision");
             ResultSet result = select.executeQuery()) {
            if (!result.next()) {
                throw new SQLException("store_revision has no row: the rules store is not migrated");
            }
            return result.getLong(1);
        }
    }

    /** Every rule, override and budget row, and the revision they are as of, in one consistent read. */
    public StoredBudgets load(Connection connection) throws SQLException {
        connection.setAutoCommit(false);
        connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        try {
            long revision = revision(connection);
            // each rule id once, the same String for every key under it: a million keys share a handful of rules
            Map<String, String> ids = new HashMap<>();
            List<Rule> rules = new ArrayList<>();
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT rule_id, domain, identity, algorithm, rate_per_s, period_s, burst, \"limit\", window_s FROM rules");
                 ResultSet result = select.executeQuery()) {
                while (result.next()) {
                    ids.put(result.getString(1), result.getString(1));
                    Rule rule = rule(result);
                    if (rule != null) {
                        rules.add(rule);
                    }
                }
            }
            List<AccountOverride> overrides = new ArrayList<>();
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT account_id, rule_id, rate_per_s, burst, expires_at FROM overrides");
                 ResultSet result = select.executeQuery()) {
                while (result.next()) {
                    OffsetDateTime expires = result.getObject(5, OffsetDateTime.class);
                    overrides.add(new AccountOverride(result.getString(1), ids.getOrDefault(result.getString(2), result.getString(2)),
                            result.getInt(3), result.getInt(4), expires == null ? null : expires.toInstant(), null));
                }
            }
            Map<BudgetKey, double[]> shares = new HashMap<>();
            int otherRegions = 0;
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT rule_id, limit_key, region, share FROM region_budgets")) {
                // streamed, not held whole in the driver (it streams only inside a transaction)
                select.setFetchSize(10_000);
                try (ResultSet result = select.executeQuery()) {
                    while (result.next()) {
                        Integer region = regionIndex.get(result.getString(3));
                        if (region == null) {
                            otherRegions++;
                            continue;
                        }
                        String rule = result.getString(1);
                        shares.computeIfAbsent(new BudgetKey(ids.getOrDefault(rule, rule), result.getString(2)), k -> nanArray())
                                [region] = result.getDouble(4);
                    }
                }
            }
            connection.commit();
            if (otherRegions > 0) {
                log.warn("region_budgets holds {} rows of regions this rebalancer does not know (it knows {}); they are left alone",
                        otherRegions, regions);
            }
            return new StoredBudgets(revision, rules, overrides, shares);
        } catch (SQLException | RuntimeException e) {
            rollbackQuietly(connection);
            throw e;
        } finally {
            connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            connection.setAutoCommit(true);
        }
    }

    /**
     * A rule as far as rebalancing needs it: its identity and its limit (whether its keys are split across
     * regions, and how many tokens a second a share of it is). Null for a kind this release does not know
     * (a newer schema's): its keys are skipped as under an unknown rule, so they keep the default split.
     */
    private static Rule rule(ResultSet row) throws SQLException {
        String id = row.getString(1);
        try {
            Identity identity = Identity.valueOf(row.getString(3).toUpperCase(Locale.ROOT));
            Limit limit = switch (Algorithm.valueOf(row.getString(4).toUpperCase(Locale.ROOT))) {
                case TOKEN_BUCKET -> new Limit.TokenBucket(row.getInt(5), row.getInt(6), row.getInt(7));
                case SLIDING_LOG -> new Limit.SlidingLog(row.getInt(8), row.getInt(9));
                case FIXED_WINDOW -> new Limit.FixedWindow(row.getInt(8), row.getInt(9));
            };
            return new Rule(id, row.getString(2), null, identity, limit, null, null, 1, 1);
        } catch (IllegalArgumentException e) {
            log.warn("rule {} has an identity or algorithm this rebalancer does not know ({}, {}): its keys keep the default split",
                    id, row.getString(3), row.getString(4));
            return null;
        }
    }

    /** Writes a plan in one transaction and answers the store revision it became visible in. */
    public long write(Connection connection, Plan plan, Instant now) throws SQLException {
        connection.setAutoCommit(false);
        try {
            long revision;
            // first: take the revision lock before touching any row, as every writer does
            try (PreparedStatement advance = connection.prepareStatement("SELECT advance_revision()");
                 ResultSet result = advance.executeQuery()) {
                result.next();
                revision = result.getLong(1);
            }
            upsert(connection, plan.writes(), OffsetDateTime.ofInstant(now, ZoneOffset.UTC));
            delete(connection, plan.resets());
            connection.commit();
            return revision;
        } catch (SQLException | RuntimeException e) {
            rollbackQuietly(connection);
            throw e;
        } finally {
            connection.setAutoCommit(true);
        }
    }

    private void upsert(Connection connection, Map<BudgetKey, double[]> writes, OffsetDateTime now) throws SQLException {
        if (writes.isEmpty()) {
            return;
        }
        List<Map.Entry<BudgetKey, double[]>> entries = new ArrayList<>(writes.entrySet());
        try (PreparedStatement upsert = connection.prepareStatement(UPSERT)) {
            for (int from = 0; from < entries.size(); from += KEYS_PER_STATEMENT) {
                List<Map.Entry<BudgetKey, double[]>> chunk = entries.subList(from, Math.min(entries.size(), from + KEYS_PER_STATEMENT));
                int rows = chunk.size() * regions.size();
                String[] rules = new String[rows];
                String[] keys = new String[rows];
                String[] regionNames = new String[rows];
                Double[] shares = new Double[rows];
                int row = 0;
                for (Map.Entry<BudgetKey, double[]> entry : chunk) {
                    for (int region = 0; region < regions.size(); region++) {
                        rules[row] = entry.getKey().ruleId();
                        keys[row] = entry.getKey().limitKey();
                        regionNames[row] = regions.get(region);
                        shares[row] = entry.getValue()[region];
                        row++;
                    }
                }
                upsert.setObject(1, now);
                upsert.setArray(2, connection.createArrayOf("text", rules));
                upsert.setArray(3, connection.createArrayOf("text", keys));
                upsert.setArray(4, connection.createArrayOf("text", regionNames));
                upsert.setArray(5, connection.createArrayOf("float8", shares));
                upsert.executeUpdate();
            }
        }
    }

    private static void delete(Connection connection, List<BudgetKey> resets) throws SQLException {
        if (resets.isEmpty()) {
            return;
        }
        try (PreparedStatement delete = connection.prepareStatement(DELETE)) {
            for (int from = 0; from < resets.size(); from += KEYS_PER_STATEMENT) {
                List<BudgetKey> chunk = resets.subList(from, Math.min(resets.size(), from + KEYS_PER_STATEMENT));
                delete.setArray(1, connection.createArrayOf("text", chunk.stream().map(BudgetKey::ruleId).toArray(String[]::new)));
                delete.setArray(2, connection.createArrayOf("text", chunk.stream().map(BudgetKey::limitKey).toArray(String[]::new)));
                delete.executeUpdate();
            }
        }
    }

    private double[] nanArray() {
        double[] shares = new double[regions.size()];
        Arrays.fill(shares, Double.NaN);
        return shares;
    }

    private static void rollbackQuietly(Connection connection) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            log.debug("rollback failed: {}", e.toString());
        }
    }
}
