package dev.tollgate.rules.change;

import dev.tollgate.common.rule.Rule;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.List;

/**
 * The store revision and the history, written in the caller's transaction so that a change, its
 * audit row and the revision pods watch commit together or not at all.
 *
 * <p>Every write transaction calls {@link #lock()} before it reads what it is about to change: the
 * lock is the revision row, held until commit, so writers run one at a time. That is what makes an
 * {@code If-Match} check followed by an update race-free, and it keeps revisions committing in order.
 * Admin writes are a few per minute, so one at a time costs nothing.
 */
@Component
public class ChangeLog {

    private final JdbcClient jdbc;
    private final JsonMapper json;
    private final ApplicationEventPublisher events;

    ChangeLog(JdbcClient jdbc, JsonMapper json, ApplicationEventPublisher events) {
        this.jdbc = jdbc;
        this.events = events;
        this.json = json;
    }

    /** Takes the store's write lock for the current transaction and answers the revision it holds. */
    long lock() {
        requireTransaction();
        return jdbc.sql("SELECT revision FROM store_revision FOR UPDATE").query(Long.class).single();
    }

    /** The latest committed revision; cheap enough to poll a few times a second. */
    public long revision() {
        return jdbc.sql("SELECT revision FROM store_revision").query(Long.class).single();
    }

    /** Advances the revision (once per transaction) and appends the change to the history. */
    public long record(Change change) {
        requireTransaction();
        long revision = jdbc.sql("SELECT advance_revision()").query(Long.class).single();
        jdbc.sql("INSERT INTO rule_history (revision, changed_by, reason, entity, change, rule_id, account_id,"
                        + " old_version, new_version, old_value, new_value)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS jsonb), CAST(? AS jsonb))")
                .params(columns(revision, change))
                .update();
        events.publishEvent(new StoreChanged(revision, change.entity(), change.kind()));
        return revision;
    }

    /** The history of one rule and its overrides, oldest first. */
    public List<HistoryEntry> forRule(String ruleId) {
        return jdbc.sql("SELECT revision, changed_at, changed_by, reason, entity, change, rule_id, account_id,"
                        + " old_version, new_version, old_value::text AS old_json, new_value::text AS new_json"
                        + " FROM rule_history WHERE rule_id = ? AND entity <> 'descriptor_domain' ORDER BY id")
                .param(ruleId)
                .query((rs, row) -> new HistoryEntry(
                        rs.getLong("revision"),
                        Columns.instant(rs, "changed_at"),
                        rs.getString("changed_by"),
                        rs.getString("reason"),
                        rs.getString("entity"),
                        rs.getString("change"),
                        rs.getString("rule_id"),
                        rs.getString("account_id"),
                        Columns.bigint(rs, "old_version"),
                        Columns.bigint(rs, "new_version"),
                        fromJson(rs.getString("old_json")),
                        fromJson(rs.getString("new_json"))))
                .list();
    }

    /** The row's values in the order of the INSERT: NULL where the change has nothing to say. */
    private Object[] columns(long revision, Change change) {
        String accountId = null;
        Long oldVersion = null;
        Long newVersion = null;
        Object before;
        Object after;
        if (change instanceof RuleChange rule) {
            oldVersion = version(rule.before());
            newVersion = version(rule.after());
            before = rule.before();
            after = rule.after();
        } else if (change instanceof DescriptorChange descriptors) {
            oldVersion = descriptors.before() == null ? null : descriptors.before().version();
            newVersion = descriptors.after() == null ? null : descriptors.after().version();
            before = descriptors.before();
            after = descriptors.after();
        } else {
            OverrideChange override = (OverrideChange) change;
            accountId = override.accountId();
            before = override.before();
            after = override.after();
        }
        return new Object[] {revision, change.actor(), change.reason(), Columns.text(change.entity()), Columns.text(change.kind()),
                change.ruleId(), accountId, oldVersion, newVersion, toJson(before), toJson(after)};
    }

    private static Long version(Rule rule) {
        return rule == null ? null : rule.version();
    }

    private String toJson(Object value) {
        return value == null ? null : json.writeValueAsString(value);
    }

    private JsonNode fromJson(String value) {
        return value == null ? null : json.readTree(value);
    }

    private static void requireTransaction() {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("a change must be written inside a transaction");
        }
    }
}
