package dev.tollgate.rules.console;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

import java.util.List;

/**
 * The keys the rules store knows by name: accounts with an override and keys with a region budget
 * (every key the rebalancer has seen traffic for). Keys exist in Redis too, but only as hash-tagged
 * state that no read can list without a SCAN of every primary; a key found nowhere here can still be
 * opened by its exact name.
 */
@Component
class KeyDirectory {

    private final JdbcClient jdbc;

    KeyDirectory(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Keys containing {@code fragment} (case-insensitive), alphabetically, at most {@code limit}. */
    List<String> search(String fragment, int limit) {
        String pattern = "%" + fragment.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%";
        return jdbc.sql("SELECT DISTINCT k FROM (SELECT account_id AS k FROM overrides UNION SELECT limit_key FROM region_budgets) known"
                        + " WHERE k ILIKE ? ESCAPE '\\' ORDER BY k LIMIT ?")
                .params(pattern, limit)
                .query(String.class)
                .list();
    }
}
