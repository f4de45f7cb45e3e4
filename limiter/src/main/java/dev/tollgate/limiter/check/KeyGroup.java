package dev.tollgate.limiter.check;

import dev.tollgate.common.rule.Algorithm;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.script.Spend;

import java.util.ArrayList;
import java.util.List;

/**
 * The entries of one request that go to one script call: same key (so one hash tag, one slot: token
 * buckets, logs and windows of that key are spent all-or-nothing together), and same mode. Shadow rules
 * get groups of their own, or a shadow rule over its limit would block the spend of an enforced one in
 * the all-or-nothing script.
 *
 * <p>Two entries naming the same rule and key are merged into one spend of their summed cost: the
 * script reads each key once, so passing it twice would let the second write overwrite the first. The
 * sum is bounded by the rule's {@code max_cost} like any single cost (the limiter checks it), or
 * repeating an entry would get past {@code max_cost}.
 */
final class KeyGroup {

    /** A map key on every check: its own {@code hashCode} and {@code equals}, not a record's method handles. */
    record Id(String key, boolean shadow) {
        @Override
        public int hashCode() {
            return key.hashCode() * 31 + (shadow ? 1 : 0);
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Id id && shadow == id.shadow && key.equals(id.key);
        }
    }

    private final Id id;
    private final List<Rule> rules = new ArrayList<>();
    private final List<Double> shares = new ArrayList<>();
    private final List<Long> costs = new ArrayList<>();
    private final List<List<Integer>> entryIndexes = new ArrayList<>();
    private List<Spend> spends;
    private String leaseSet;
    private Boolean answeredLocally;
    private Boolean countsAfter;

    KeyGroup(Id id) {
        this.id = id;
    }

    void add(Rule rule, double share, int cost, int entryIndex) {
        spends = null;
        leaseSet = null;
        answeredLocally = null;
        countsAfter = null;
        for (int i = 0; i < rules.size(); i++) {
            if (rules.get(i).id().equals(rule.id())) {
                costs.set(i, costs.get(i) + cost);
                entryIndexes.get(i).add(entryIndex);
                return;
            }
        }
        rules.add(rule);
        shares.add(share);
        costs.add((long) cost);
        List<Integer> indexes = new ArrayList<>(1);
        indexes.add(entryIndex);
        entryIndexes.add(indexes);
    }

    Id id() {
        return id;
    }

    String key() {
        return id.key();
    }

    boolean shadow() {
        return id.shadow();
    }

    /**
     * Whether the pod itself may answer for the group, from a lease or its local-first bucket: every limit is a
     * token bucket (only those are leased and kept locally) and every entry spends. An entry that only looks (cost
     * 0) asks whether one more request would pass, which only the store can say without spending. Decided once:
     * the local stage asks up to five times per check.
     */
    boolean answeredLocally() {
        if (answeredLocally == null) {
            boolean buckets = true;
            for (int i = 0; i < rules.size(); i++) {
                buckets &= rules.get(i).algorithm() == Algorithm.TOKEN_BUCKET && costs.get(i) > 0;
            }
            answeredLocally = buckets;
        }
        return answeredLocally;
    }

    /**
     * Whether the pod admits the group on its own and counts after: every rule of the group counts after. A group
     * mixing an inline rule with a count-after one on one key is checked inline as a whole, which is exact for both
     * (the count-after rule's limit is spent in the same bucket the flushes add to), where answering part of it on
     * the pod would lose the all-or-nothing spend of the key's limits.
     */
    boolean countsAfter() {
        if (countsAfter == null) {
            boolean after = !rules.isEmpty();
            for (Rule rule : rules) {
                after &= rule.countsAfter();
            }
            countsAfter = after;
        }
        return countsAfter;
    }

    int size() {
        return rules.size();
    }

    Rule rule(int i) {
        return rules.get(i);
    }

    /** The region's share of rule {@code i}'s limit for this key. */
    double share(int i) {
        return shares.get(i);
    }

    /** The summed cost of the entries naming rule {@code i}; at most 1024 × 2^31, so it fits a long. */
    long cost(int i) {
        return costs.get(i);
    }

    List<Integer> entryIndexes(int i) {
        return entryIndexes.get(i);
    }

    /**
     * The name of the group's lease: a lease is for one set of buckets at their costs (same key, rules,
     * costs and shares in the same order). Built once; a leased check reads it up to three times.
     */
    String leaseSet() {
        if (leaseSet == null) {
            StringBuilder set = new StringBuilder(key()).append('\u0000');
            for (Spend spend : spends()) {
                // the share's bits, not its decimal: the same for the same share, and no double formatting on every check
                set.append(spend.rule().id()).append(':').append(spend.cost()).append(':')
                        .append(Double.doubleToLongBits(spend.share())).append(',');
            }
            leaseSet = set.toString();
        }
        return leaseSet;
    }

    /** The group's spends, built once: the hot path reads them up to four times per check. */
    List<Spend> spends() {
        if (spends == null) {
            List<Spend> built = new ArrayList<>(rules.size());
            for (int i = 0; i < rules.size(); i++) {
                built.add(new Spend(rules.get(i), shares.get(i), Math.toIntExact(costs.get(i))));
            }
            spends = List.copyOf(built);
        }
        return spends;
    }
}
