package dev.tollgate.rules.budget;

import dev.tollgate.common.rule.RegionBudget;
import dev.tollgate.rules.change.Columns;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

import java.util.List;

/** The {@code region_budgets} table, read here; budget-rebalancer writes it. */
@Repository
public class RegionBudgetRepository {

    private static final RowMapper<RegionBudget> BUDGET = (rs, row) -> new RegionBudget(
            rs.getString("rule_id"),
            rs.getString("limit_key"),
            rs.getString("region"),
            rs.getDouble("share"),
            Columns.instant(rs, "updated_at"));

    private final JdbcClient jdbc;

    RegionBudgetRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Every budget row of {@code region} (of every region when null). */
    public List<RegionBudget> findAll(String region) {
        return jdbc.sql("SELECT rule_id, limit_key, region, share, updated_at FROM region_budgets"
                        + " WHERE (CAST(:region AS text) IS NULL OR region = :region) ORDER BY rule_id, limit_key, region")
                .param("region", region)
                .query(BUDGET)
                .list();
    }

    /**
     * The rows of {@code region} written after {@code revision}: one range of the (region, revision) index,
     * so a pod's delta costs the rows that changed, not the table.
     */
    public List<RegionBudget> changedSince(String region, long revision) {
        return jdbc.sql("SELECT rule_id, limit_key, region, share, updated_at FROM region_budgets"
                        + " WHERE region = ? AND revision > ? ORDER BY rule_id, limit_key")
                .params(region, revision)
                .query(BUDGET)
                .list();
    }

    public List<RegionBudget> forKey(String limitKey) {
        return jdbc.sql("SELECT rule_id, limit_key, region, share, updated_at FROM region_budgets"
                        + " WHERE limit_key = ? ORDER BY rule_id, region")
                .param(limitKey)
                .query(BUDGET)
                .list();
    }
}
