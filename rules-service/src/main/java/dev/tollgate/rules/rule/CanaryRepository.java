package dev.tollgate.rules.rule;

import dev.tollgate.common.rule.Rule;
import dev.tollgate.rules.change.Columns;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import tools.jackson.databind.json.JsonMapper;

import java.util.List;
import java.util.Optional;

/**
 * The {@code rule_canaries} table (V6): at most one canary per rule, its body held as the rule's wire JSON. Written
 * by {@link RuleCatalog} under the store lock; V6's triggers stamp each row's revision and leave a tombstone when
 * one goes, so the watch feed carries canaries as it carries rules.
 */
@Repository
public class CanaryRepository {

    private static final String COLUMNS = "rule_id, base_version, version, body::text AS body, written_at";

    /**
     * The highest version the rule has had since it was last created: its history's, canaries rolled back included,
     * or the rule's own when a writer without history (psql) moved it further.
     */
    private static final String HIGHEST_VERSION = """
            SELECT greatest(:current, coalesce(max(greatest(coalesce(old_version, 0), coalesce(new_version, 0))), 0))
              FROM rule_history
             WHERE rule_id = :rule AND entity = 'rule'
               AND id >= coalesce((SELECT max(id) FROM rule_history WHERE rule_id = :rule AND entity = 'rule' AND change = 'create'), 0)""";

    private final JdbcClient jdbc;
    private final JsonMapper json;
    private final RowMapper<RuleCanary> canary;

    CanaryRepository(JdbcClient jdbc, JsonMapper json) {
        this.jdbc = jdbc;
        this.json = json;
        // the version column is the canary's version; the JSON's is left as it was written
        this.canary = (rs, row) -> new RuleCanary(json.readValue(rs.getString("body"), Rule.class).withVersion(rs.getLong("version")),
                rs.getLong("base_version"), Columns.instant(rs, "written_at"));
    }

    public Optional<RuleCanary> find(String ruleId) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM rule_canaries WHERE rule_id = ?").param(ruleId).query(canary).optional();
    }

    /** Every canary version, ordered by rule id: what a snapshot carries. */
    public List<Rule> findAll() {
        return jdbc.sql("SELECT " + COLUMNS + " FROM rule_canaries ORDER BY rule_id").query(canary).list().stream().map(RuleCanary::rule).toList();
    }

    /** The canaries written after {@code revision}: what a delta carries. */
    public List<Rule> changedSince(long revision) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM rule_canaries WHERE revision > ? ORDER BY rule_id").param(revision).query(canary).list()
                .stream().map(RuleCanary::rule).toList();
    }

    /** The version a new canary of the rule gets: one above any it has had, so that a version names one body. */
    long nextVersion(String ruleId, long current) {
        return jdbc.sql(HIGHEST_VERSION).param("current", current).param("rule", ruleId).query(Long.class).single() + 1;
    }

    void insert(Rule canary, long baseVersion) {
        jdbc.sql("INSERT INTO rule_canaries (rule_id, base_version, version, body) VALUES (?, ?, ?, CAST(? AS jsonb))")
                .params(canary.id(), baseVersion, canary.version(), json.writeValueAsString(canary))
                .update();
    }

    void delete(String ruleId) {
        jdbc.sql("DELETE FROM rule_canaries WHERE rule_id = ?").param(ruleId).update();
    }
}
