package dev.tollgate.rules.override;

import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.rules.change.Columns;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The {@code overrides} table. "Active at t" means no expiry, or an expiry after t. */
@Repository
public class OverrideRepository {

    private static final String COLUMNS = "account_id, rule_id, rate_per_s, burst, expires_at, reason";

    private static final RowMapper<AccountOverride> OVERRIDE = (rs, row) -> new AccountOverride(
            rs.getString("account_id"),
            rs.getString("rule_id"),
            rs.getInt("rate_per_s"),
            rs.getInt("burst"),
            Columns.instant(rs, "expires_at"),
            rs.getString("reason"));

    private final JdbcClient jdbc;

    OverrideRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    Optional<AccountOverride> find(String accountId, String ruleId) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM overrides WHERE account_id = ? AND rule_id = ?")
                .params(accountId, ruleId)
                .query(OVERRIDE)
                .optional();
    }

    /**
     * Overrides matching the filters (null: any), ordered by account then rule.
     *
     * @param activeAt when not null, only the overrides still active at that instant
     */
    public List<AccountOverride> find(String accountId, String ruleId, Instant activeAt) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM overrides"
                        + " WHERE (CAST(:account AS text) IS NULL OR account_id = :account)"
                        + " AND (CAST(:rule AS text) IS NULL OR rule_id = :rule)"
                        + " AND (CAST(:now AS timestamptz) IS NULL OR expires_at IS NULL OR expires_at > :now)"
                        + " ORDER BY account_id, rule_id")
                .param("account", accountId)
                .param("rule", ruleId)
                .param("now", Columns.timestamp(activeAt))
                .query(OVERRIDE)
                .list();
    }

    /** The overrides created or changed after {@code revision}, expired or not. */
    public List<AccountOverride> changedSince(long revision) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM overrides WHERE revision > ? ORDER BY account_id, rule_id")
                .param(revision)
                .query(OVERRIDE)
                .list();
    }

    void upsert(AccountOverride override) {
        jdbc.sql("INSERT INTO overrides (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?)"
                        + " ON CONFLICT (account_id, rule_id) DO UPDATE SET rate_per_s = EXCLUDED.rate_per_s,"
                        + " burst = EXCLUDED.burst, expires_at = EXCLUDED.expires_at, reason = EXCLUDED.reason")
                .params(override.accountId(), override.ruleId(), override.ratePerS(), override.burst(),
                        Columns.timestamp(override.expiresAt()), override.reason())
                .update();
    }

    boolean delete(String accountId, String ruleId) {
        return jdbc.sql("DELETE FROM overrides WHERE account_id = ? AND rule_id = ?").params(accountId, ruleId).update() == 1;
    }
}
