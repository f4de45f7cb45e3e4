package dev.tollgate.rules.rule;

import dev.tollgate.common.rule.Algorithm;
import dev.tollgate.common.rule.Counting;
import dev.tollgate.common.rule.FailMode;
import dev.tollgate.common.rule.Identity;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Mode;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleFields;
import dev.tollgate.rules.change.Columns;
import dev.tollgate.rules.change.Versioned;
import dev.tollgate.rules.change.VersionedWrites;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

import java.util.List;
import java.util.Optional;

/** The {@code rules} table. It is written through {@link VersionedWrites}, under the store lock. */
@Repository
public class RuleRepository implements Versioned.Table<Rule> {

    private static final String COLUMNS = "rule_id, domain, match_plan, match_route, identity, algorithm, rate_per_s,"
            + " period_s, burst, \"limit\", window_s, mode, fail_mode, max_cost, counting, version";

    /** The schema's CHECK constraints guarantee a row's algorithm and its fields; another algorithm's are left behind. */
    private static final RowMapper<Rule> RULE = (rs, row) -> new RuleFields(
            rs.getString("rule_id"),
            rs.getString("domain"),
            new Match(rs.getString("match_plan"), rs.getString("match_route")),
            Columns.enumOf(Identity.class, rs.getString("identity")),
            Columns.enumOf(Algorithm.class, rs.getString("algorithm")),
            Columns.integer(rs, "rate_per_s"),
            Columns.integer(rs, "period_s"),
            Columns.integer(rs, "burst"),
            Columns.integer(rs, "limit"),
            Columns.integer(rs, "window_s"),
            Columns.enumOf(Mode.class, rs.getString("mode")),
            Columns.enumOf(FailMode.class, rs.getString("fail_mode")),
            Columns.integer(rs, "max_cost"),
            Columns.enumOf(Counting.class, rs.getString("counting")),
            rs.getLong("version")).toRule();

    private final JdbcClient jdbc;

    RuleRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    public String key(Rule rule) {
        return rule.id();
    }

    @Override
    public long version(Rule rule) {
        return rule.version();
    }

    @Override
    public Rule withVersion(Rule rule, long version) {
        return rule.withVersion(version);
    }

    @Override
    public Optional<Rule> find(String ruleId) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM rules WHERE rule_id = ?")
                .param(ruleId)
                .query(RULE)
                .optional();
    }

    /** Every rule, or a domain's, ordered by id. */
    public List<Rule> findAll(String domain) {
        if (domain == null) {
            return jdbc.sql("SELECT " + COLUMNS + " FROM rules ORDER BY rule_id").query(RULE).list();
        }
        return jdbc.sql("SELECT " + COLUMNS + " FROM rules WHERE domain = ? ORDER BY rule_id").param(domain).query(RULE).list();
    }

    /** The rules created or changed after {@code revision} (V3 stamps each row with its last change's). */
    public List<Rule> changedSince(long revision) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM rules WHERE revision > ? ORDER BY rule_id").param(revision).query(RULE).list();
    }

    @Override
    public void insert(Rule rule) {
        jdbc.sql("INSERT INTO rules (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                .params(values(rule))
                .update();
    }

    /** Replaces every field of the rule; {@code expectedVersion} guards against a writer that skipped the lock. */
    @Override
    public void update(Rule rule, long expectedVersion) {
        Object[] values = values(rule);
        int updated = jdbc.sql("UPDATE rules SET domain = ?, match_plan = ?, match_route = ?, identity = ?, algorithm = ?,"
                        + " rate_per_s = ?, period_s = ?, burst = ?, \"limit\" = ?, window_s = ?, mode = ?, fail_mode = ?,"
                        + " max_cost = ?, counting = ?, version = ? WHERE rule_id = ? AND version = ?")
                .params(values[1], values[2], values[3], values[4], values[5], values[6], values[7], values[8], values[9],
                        values[10], values[11], values[12], values[13], values[14], values[15], rule.id(), expectedVersion)
                .update();
        if (updated != 1) {
            throw new IllegalStateException("rule " + rule.id() + " changed under the store lock");
        }
    }

    @Override
    public void delete(String ruleId) {
        jdbc.sql("DELETE FROM rules WHERE rule_id = ?").param(ruleId).update();
    }

    /** The columns in {@link #COLUMNS} order; the other algorithm's stay NULL. */
    private static Object[] values(Rule rule) {
        RuleFields fields = rule.fields();
        return new Object[] {
                fields.id(), fields.domain(), fields.match().plan(), fields.match().route(), Columns.text(fields.identity()),
                Columns.text(fields.algorithm()), fields.ratePerS(), fields.periodS(), fields.burst(), fields.limit(), fields.windowS(),
                Columns.text(fields.mode()), Columns.text(fields.failMode()), fields.maxCost(), Columns.text(fields.counting()),
                fields.version()
        };
    }
}
