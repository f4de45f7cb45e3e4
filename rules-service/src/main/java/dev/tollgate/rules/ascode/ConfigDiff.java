package dev.tollgate.rules.ascode;

import dev.tollgate.common.ascode.DomainConfig;
import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.rules.ascode.ApplyReport.Kind;
import dev.tollgate.rules.ascode.ApplyReport.ObjectChange;
import dev.tollgate.rules.ascode.ApplyReport.Outcome;
import dev.tollgate.rules.change.FieldChange;
import tools.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * What turns one configuration of a domain into another, object by object: each is created, updated (with the
 * fields that change, as the history's diff names them), deleted or unchanged. Pure: both sides are given.
 */
final class ConfigDiff {

    private ConfigDiff() {
    }

    static List<ObjectChange> between(DomainConfig before, DomainConfig after, JsonMapper json) {
        List<ObjectChange> changes = new ArrayList<>();
        Map<String, Rule> oldRules = byKey(before.rules(), Rule::id);
        Map<String, Rule> newRules = byKey(after.rules(), Rule::id);
        for (String id : union(oldRules, newRules)) {
            changes.add(change(Kind.RULE, id, null, null, oldRules.get(id), newRules.get(id), json));
        }
        if (before.descriptors() != null || after.descriptors() != null) {
            changes.add(change(Kind.DESCRIPTORS, after.domain(), null, null, before.descriptors(), after.descriptors(), json));
        }
        Map<String, AccountOverride> oldOverrides = byKey(before.overrides(), ConfigDiff::key);
        Map<String, AccountOverride> newOverrides = byKey(after.overrides(), ConfigDiff::key);
        for (String key : union(oldOverrides, newOverrides)) {
            AccountOverride any = newOverrides.getOrDefault(key, oldOverrides.get(key));
            changes.add(change(Kind.OVERRIDE, null, any.accountId(), any.ruleId(), oldOverrides.get(key), newOverrides.get(key), json));
        }
        return changes;
    }

    /** An override's identity: one per account and rule. NUL cannot be in either (the validator refuses it). */
    static String key(AccountOverride override) {
        return override.accountId() + "\u0000" + override.ruleId();
    }

    private static ObjectChange change(Kind kind, String id, String accountId, String ruleId, Object before, Object after, JsonMapper json) {
        if (before == null) {
            return new ObjectChange(kind, id, accountId, ruleId, Outcome.CREATED, null);
        }
        if (after == null) {
            return new ObjectChange(kind, id, accountId, ruleId, Outcome.DELETED, null);
        }
        if (Objects.equals(before, after)) {
            return new ObjectChange(kind, id, accountId, ruleId, Outcome.UNCHANGED, null);
        }
        return new ObjectChange(kind, id, accountId, ruleId, Outcome.UPDATED,
                FieldChange.between(json.valueToTree(before), json.valueToTree(after)));
    }

    static <T> Map<String, T> byKey(List<T> values, Function<T, String> key) {
        Map<String, T> map = new LinkedHashMap<>();
        values.forEach(value -> map.put(key.apply(value), value));
        return map;
    }

    /** Both sides' keys, sorted, as the canonical file orders them. */
    private static List<String> union(Map<String, ?> before, Map<String, ?> after) {
        TreeMap<String, Boolean> keys = new TreeMap<>();
        before.keySet().forEach(key -> keys.put(key, true));
        after.keySet().forEach(key -> keys.put(key, true));
        return List.copyOf(keys.keySet());
    }
}
