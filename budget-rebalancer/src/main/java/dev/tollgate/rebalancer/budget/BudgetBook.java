package dev.tollgate.rebalancer.budget;

import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.key.UsageKeys;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The active rebalancer's copy of region_budgets, and the decision of each cycle: which keys get new
 * shares and which go back to the default split. No I/O: the cycle reads and writes around it.
 *
 * <p>"No row" means the default split: a pod applies its region's default share to a key it has no
 * budget for, so rows exist only for keys with recent traffic, and a key idle for {@code idleAfter}
 * goes back to the default by deleting its rows. Only the keys of rules split across regions get rows
 * ({@link Rule#regionBudgeted()}): an account's, never an IP or a login log, whose keys a caller chooses
 * and could spray by the thousand a second. Pods report no usage for the others; what still arrives
 * (from pods of an older release) is skipped, and the rows such keys have go back to the default once
 * idle, as any key's do. All of a key's rows are written together or not at
 * all, so a pod never combines shares of two different splits.
 *
 * <p>A key gets rows only while it uses at least {@code minUsage} of its limit in a usage window (its
 * steady rate over the window, with its active override, summed over the regions); usage below that
 * does not count as seen either, so such a key's rows go back to the default once idle. Nothing is lost
 * by it: {@code minUsage} is at most the floor, and every region's share, default or written, is at
 * least the floor, so a key below the minimum fits in whichever region its traffic is. What it keeps
 * out is the long tail of keys that barely spend: each would be rows in every pod's snapshot.
 *
 * <p>Shares that moved by no more than {@code minChange} in every region are not rewritten: steady
 * traffic then costs no write, no new store revision and no new snapshot on every pod each cycle.
 *
 * <p>At most {@code maxKeysPerCycle} keys are written or reset per cycle, so a cycle's transaction stays
 * short however many keys moved at once (the first cycle after start-up has every key to write;
 * PostgreSQL upserts some 50,000 budget rows a second on a small machine). The largest changes go first,
 * measured in tokens a second (a region's share moved times the key's limit), not in share: a small key
 * seen in one region swings its share by 0.5 while a merchant's real shift is a few points of a limit a
 * thousand times larger, and ranked by share a swarm of small keys would hold the merchant back for as
 * long as it lasted. The rest wait for the next cycles; a key waiting keeps a whole, valid split
 * meanwhile (its old rows or the default), since a key's rows are only ever written together.
 *
 * <p>A region whose usage could not be read keeps its share for every key (its stored share, or its
 * default when the key has no rows), and no key is reset as idle in that cycle: usage that cannot be
 * seen is not the same as no usage.
 */
public final class BudgetBook {

    private final BudgetSplit split;
    private final Duration idleAfter;
    private final long minChangeMicros;
    private final double minUsage;
    private final int maxKeysPerCycle;
    private final double[] defaults;
    private final Map<BudgetKey, double[]> stored = new HashMap<>();
    /** When each key last had usage, or when this instance first saw its rows; for idle resets. */
    private final Map<BudgetKey, Instant> lastSeen = new HashMap<>();
    /** Every rule in the store, by id. */
    private Map<String, Rule> rules = Map.of();
    /** Every override in the store, by the key it raises; applied while active. */
    private Map<BudgetKey, AccountOverride> overrides = Map.of();

    /**
     * @param minUsage the least share of its limit a key must use in a usage window to get rows, in
     *                 [0, the split's floor]
     */
    public BudgetBook(BudgetSplit split, Duration idleAfter, double minChange, double minUsage, int maxKeysPerCycle) {
        if (maxKeysPerCycle < 1) {
            throw new IllegalArgumentException("tollgate.rebalancer.max-keys-per-cycle must be at least 1, was " + maxKeysPerCycle);
        }
        if (!(minUsage >= 0 && minUsage <= split.floor() + 1e-9)) {
            throw new IllegalArgumentException("tollgate.rebalancer.min-usage must be at least 0 and at most tollgate.rebalancer.floor ("
                    + split.floor() + "), so that a key below it fits in any region's share; was " + minUsage);
        }
        this.minUsage = minUsage;
        this.split = split;
        this.idleAfter = idleAfter;
        this.minChangeMicros = BudgetSplit.micros(minChange);
        this.maxKeysPerCycle = maxKeysPerCycle;
        this.defaults = split.defaultShares();
    }

    /**
     * Replaces the copy with what the store holds. Keys first seen now count as seen now: after a
     * takeover an idle key is reset {@code idleAfter} later, not at once.
     */
    public void reload(StoredBudgets budgets, Instant now) {
        stored.clear();
        stored.putAll(budgets.shares());
        Map<String, Rule> byId = new HashMap<>();
        for (Rule rule : budgets.rules()) {
            byId.put(rule.id(), rule);
        }
        rules = byId;
        Map<BudgetKey, AccountOverride> byKey = new HashMap<>();
        for (AccountOverride override : budgets.overrides()) {
            byKey.put(new BudgetKey(override.ruleId(), override.accountId()), override);
        }
        overrides = byKey;
        for (BudgetKey key : budgets.shares().keySet()) {
            lastSeen.putIfAbsent(key, now);
        }
    }

    /**
     * @param usage     cost per key and region in the window read (0 for an unreachable region)
     * @param reachable per region, whether its usage was read
     */
    public Plan plan(Map<BudgetKey, long[]> usage, boolean[] reachable, Instant now) {
        boolean allReachable = true;
        for (boolean region : reachable) {
            allReachable &= region;
        }
        List<Change> changes = new ArrayList<>();
        int rebalanced = 0;
        int unknownRule = 0;
        int defaultSplit = 0;
        int belowMinimum = 0;
        for (Map.Entry<BudgetKey, long[]> entry : usage.entrySet()) {
            BudgetKey key = entry.getKey();
            Rule rule = rules.get(key.ruleId());
            if (rule == null) {
                unknownRule++;
                continue;
            }
            if (!rule.regionBudgeted()) {
                // not seen either: a row such a key still has goes back to the default once idle
                defaultSplit++;
                continue;
            }
            double perSecond = perSecond(rule, key, now);
            if (belowMinimum(entry.getValue(), perSecond)) {
                // not seen: below the minimum the default split serves the key as well as any
                belowMinimum++;
                continue;
            }
            lastSeen.put(key, now);
            double[] current = stored.get(key);
            double[] shares = split.split(entry.getValue(), allReachable ? null : kept(current, reachable));
            if (shares == null) {
                // broken rows leave the other regions no room: the key keeps them
                continue;
            }
            rebalanced++;
            long change = change(shares, current == null ? defaults : current);
            if (change > minChangeMicros) {
                changes.add(new Change(key, shares, change * perSecond));
            }
        }
        int deferred = 0;
        if (changes.size() > maxKeysPerCycle) {
            changes.sort(Comparator.comparingDouble(Change::tokensMoved).reversed());
            deferred = changes.size() - maxKeysPerCycle;
            changes = changes.subList(0, maxKeysPerCycle);
        }
        Map<BudgetKey, double[]> writes = new LinkedHashMap<>();
        for (Change change : changes) {
            writes.put(change.key(), change.shares());
        }
        List<BudgetKey> resets = new ArrayList<>();
        if (allReachable) {
            Instant idleSince = now.minus(idleAfter);
            for (Iterator<Map.Entry<BudgetKey, Instant>> it = lastSeen.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<BudgetKey, Instant> seen = it.next();
                // seen means rebalanced: usage of a key the plan skipped does not keep its rows
                if (!seen.getValue().isAfter(idleSince)) {
                    if (stored.containsKey(seen.getKey())) {
                        if (writes.size() + resets.size() < maxKeysPerCycle) {
                            resets.add(seen.getKey());
                        } else {
                            deferred++;
                        }
                    } else {
                        // its usage never moved it off the default split: nothing to undo
                        it.remove();
                    }
                }
            }
        }
        return new Plan(writes, resets, rebalanced, new Plan.Skipped(unknownRule, defaultSplit, belowMinimum), deferred);
    }

    /** The plan was committed: the copy follows it. */
    public void applied(Plan plan) {
        stored.putAll(plan.writes());
        for (BudgetKey key : plan.resets()) {
            stored.remove(key);
            lastSeen.remove(key);
        }
    }

    /** Keys that have rows. */
    public int size() {
        return stored.size();
    }

    /** The key's limit in tokens a second at its steady rate: its override's while one is active, else its rule's. */
    private double perSecond(Rule rule, BudgetKey key, Instant now) {
        AccountOverride override = overrides.isEmpty() ? null : overrides.get(key);
        Rule applied = override != null && override.activeAt(now) ? rule.overriddenBy(override) : rule;
        return applied.limit().perSecond();
    }

    /** Whether a window's usage, over every region read, is under {@code minUsage} of what the limit admits in a window. */
    private boolean belowMinimum(long[] usage, double perSecond) {
        long used = 0;
        for (long cost : usage) {
            used += cost;
        }
        // a hair under, so that exactly the minimum (10 of 100) is not lost to rounding
        return used < minUsage * perSecond * UsageKeys.WINDOW_SECONDS * (1 - 1e-9);
    }

    /** The share each unreachable region keeps; NaN for the regions to compute. */
    private double[] kept(double[] current, boolean[] reachable) {
        double[] kept = new double[reachable.length];
        for (int i = 0; i < kept.length; i++) {
            if (reachable[i]) {
                kept[i] = Double.NaN;
            } else {
                kept[i] = current != null && !Double.isNaN(current[i]) ? current[i] : defaults[i];
            }
        }
        return kept;
    }

    /** How far a key's shares move, in millionths: the largest move of any region (a missing row: the whole). */
    private static long change(double[] shares, double[] current) {
        long largest = 0;
        for (int i = 0; i < shares.length; i++) {
            long move = Double.isNaN(current[i]) ? BudgetSplit.WHOLE
                    : Math.abs(BudgetSplit.micros(shares[i]) - BudgetSplit.micros(current[i]));
            largest = Math.max(largest, move);
        }
        return largest;
    }

    /**
     * @param tokensMoved how far the key's budget in some region moves: its largest share move times its
     *                    limit, in millionths of a token a second (only compared)
     */
    private record Change(BudgetKey key, double[] shares, double tokensMoved) {
    }
}
