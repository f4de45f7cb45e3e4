package dev.tollgate.check.chaos;

import dev.tollgate.common.rule.Rule;
import io.lettuce.core.cluster.SlotHash;

/**
 * One limit the load checks: a rule and a key. Every Redis key of it is {@code …:{<key>}:…} (the engine
 * percent-encodes the key; the suite's keys encode to themselves), so the hash tag alone picks its slot, whatever
 * the rest of the name.
 *
 * @param weight how often the load picks it relative to others: hot targets run far past their limit, so that the
 *               admitted count is tested against a bound that binds
 */
record Target(Rule rule, String key, int weight) {

    String ruleId() {
        return rule.id();
    }

    boolean failsClosed() {
        return rule.failsClosed();
    }

    /** What Redis Cluster hashes for every key of this limit. */
    String hashTag() {
        return "{" + key + "}";
    }

    int slot() {
        return SlotHash.getSlot(hashTag());
    }

    String body() {
        return "{\"domain\":\"" + ChaosRules.DOMAIN + "\",\"entries\":[{\"rule\":\"" + rule.id() + "\",\"key\":\"" + key + "\"}]}";
    }

    @Override
    public String toString() {
        return rule.id() + "/" + key;
    }
}
