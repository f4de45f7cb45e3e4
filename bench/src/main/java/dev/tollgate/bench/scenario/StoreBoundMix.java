package dev.tollgate.bench.scenario;

import dev.tollgate.bench.Bench;
import dev.tollgate.bench.wire.WireCheck;
import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Issue 29's store-bound mix: every check reaches the store. Each check is an Enterprise account's plan bucket and the narrow
 * {@link #ROUTE} bucket on the same key (one script call), over so many keys, drawn uniformly, that each key stays far under
 * the route's 5/s: every check is admitted, so the deny cache never answers one. What keeps the pod from answering locally
 * is the route bucket's burst of 3: a lease of a set of buckets is at most ⌊whole ÷ (2 × askers × cost)⌋ of each
 * (docs/optimizations.md), so a full route bucket leases 1, the exact check, and every check is a store call.
 *
 * <p>The wording has 1,000 keys; at the rates a pod answers here (10,000/s and more at saturation) that is 10/s
 * a key, over the route's 5/s, so most checks would be denied and then answered from the deny cache: the mix would
 * measure the deny cache, not the store. Hence {@code --wire-store-keys}, by default enough keys for 1/s a key at 20,000/s.
 */
final class StoreBoundMix {

    /** The narrow route bucket: 5/s, burst 3, so it never leases more than one request. */
    static final Rule ROUTE = Rule.tokenBucket("labels-route", Bench.DOMAIN, 5, 3).withMatch(new Match(null, "/v1/labels/batch"));
    /** The plan's bucket beside it: the design's Enterprise plan (1,000/s), which never binds here. */
    static final Rule PLAN = Plans.ENTERPRISE;

    private final List<WireCheck> checks;

    private StoreBoundMix(List<WireCheck> checks) {
        this.checks = List.copyOf(checks);
    }

    /** {@code keys} Enterprise accounts, named for this run so their buckets start full. */
    static StoreBoundMix of(Bench bench, int keys) {
        return of(bench.key(""), keys);
    }

    /** @param run the suffix that makes this run's keys its own */
    static StoreBoundMix of(String run, int keys) {
        List<WireCheck> checks = new ArrayList<>(keys);
        for (int i = 0; i < keys; i++) {
            String key = "store_" + i + run;
            checks.add(WireChecks.of(new CheckRequest(Bench.DOMAIN, List.of(CheckEntry.of(PLAN.id(), key, 1), CheckEntry.of(ROUTE.id(), key, 1)))));
        }
        return new StoreBoundMix(checks);
    }

    /** A check of a key drawn uniformly. */
    WireCheck next() {
        return checks.get(ThreadLocalRandom.current().nextInt(checks.size()));
    }

    int keys() {
        return checks.size();
    }

    /** Every key's body once: what wrk draws from (a sample would concentrate the load on fewer keys). */
    List<byte[]> bodies() {
        return checks.stream().map(WireCheck::json).toList();
    }
}
