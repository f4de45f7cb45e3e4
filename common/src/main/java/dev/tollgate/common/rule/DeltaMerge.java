package dev.tollgate.common.rule;

import dev.tollgate.common.descriptor.DescriptorDomain;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Applies what the watch feed answered ({@link RuleChanges}) to the snapshot a pod holds, giving the
 * snapshot the feed would have served whole at the answer's revision. A pure function: the pod then
 * validates the result as it validates any snapshot and swaps it in whole, or keeps what it holds.
 *
 * <p>Deletions go first, then upserts, so a row deleted and created again after {@code from} ends up
 * present. A deleted rule takes its overrides and budget rows with it, as its foreign keys do in the
 * store, even when it was created again: any of them that exist now are among the upserts. The same for its
 * canary. The result holds only the answer's region's budget rows and only the overrides active at
 * {@code now}, as a snapshot served at {@code now} would.
 */
public final class DeltaMerge {

    private static final Comparator<AccountOverride> OVERRIDES =
            Comparator.comparing(AccountOverride::accountId).thenComparing(AccountOverride::ruleId);
    private static final Comparator<RegionBudget> BUDGETS = Comparator.comparing(RegionBudget::ruleId)
            .thenComparing(RegionBudget::limitKey).thenComparing(RegionBudget::region);

    private DeltaMerge() {
    }

    /** A delta that does not start at the revision the pod holds: applying it would skip or repeat changes. */
    public static final class Mismatch extends RuntimeException {

        Mismatch(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * @param held what the pod holds; null when it holds nothing
     * @throws Mismatch when {@code changes} is a delta from another revision than {@code held}'s
     */
    public static RuleSnapshot apply(RuleSnapshot held, RuleChanges changes, Instant now) {
        if (changes.replacesAll()) {
            return changes.toSnapshot().activeAt(now);
        }
        if (held == null) {
            throw new Mismatch("a delta from revision " + changes.from() + ", and the pod holds no snapshot");
        }
        if (changes.from() != held.revision()) {
            throw new Mismatch("a delta from revision " + changes.from() + ", and the pod holds revision " + held.revision());
        }
        RuleChanges.Deleted deleted = changes.deletions();

        Map<String, Rule> rules = new TreeMap<>();
        held.rules().forEach(rule -> rules.put(rule.id(), rule));
        Set<String> goneRules = new HashSet<>(deleted.rules());
        goneRules.forEach(rules::remove);
        changes.rules().forEach(rule -> rules.put(rule.id(), rule));

        Map<RuleChanges.OverrideKey, AccountOverride> overrides = new HashMap<>();
        held.overrides().forEach(o -> overrides.put(new RuleChanges.OverrideKey(o.accountId(), o.ruleId()), o));
        deleted.overrides().forEach(overrides::remove);
        overrides.values().removeIf(o -> goneRules.contains(o.ruleId()));
        changes.overrides().forEach(o -> overrides.put(new RuleChanges.OverrideKey(o.accountId(), o.ruleId()), o));

        String region = changes.region();
        Map<RuleChanges.BudgetKey, RegionBudget> budgets = new HashMap<>();
        for (RegionBudget budget : held.regionBudgets()) {
            // a snapshot saved from a feed that sent every region: keep the answer's only
            if (region.equals(budget.region())) {
                budgets.put(new RuleChanges.BudgetKey(budget.ruleId(), budget.limitKey()), budget);
            }
        }
        deleted.regionBudgets().forEach(budgets::remove);
        budgets.values().removeIf(b -> goneRules.contains(b.ruleId()));
        changes.regionBudgets().forEach(b -> budgets.put(new RuleChanges.BudgetKey(b.ruleId(), b.limitKey()), b));

        Map<String, DescriptorDomain> domains = new TreeMap<>();
        held.descriptorDomains().forEach(d -> domains.put(d.domain(), d));
        deleted.descriptorDomains().forEach(domains::remove);
        changes.descriptorDomains().forEach(d -> domains.put(d.domain(), d));

        Map<String, Rule> canaries = new TreeMap<>();
        held.canaries().forEach(canary -> canaries.put(canary.id(), canary));
        deleted.canaries().forEach(canaries::remove);
        goneRules.forEach(canaries::remove);
        changes.canaries().forEach(canary -> canaries.put(canary.id(), canary));

        List<AccountOverride> active = new ArrayList<>(overrides.values());
        active.removeIf(o -> !o.activeAt(now));
        List<RegionBudget> shares = new ArrayList<>(budgets.values());
        shares.sort(BUDGETS);
        active.sort(OVERRIDES);
        return new RuleSnapshot(changes.revision(), List.copyOf(rules.values()), active, shares, List.copyOf(domains.values()),
                List.copyOf(canaries.values()));
    }

}
