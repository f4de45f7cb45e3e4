package dev.tollgate.common.rule;

import dev.tollgate.common.descriptor.DescriptorDomain;

import java.time.Instant;
import java.util.List;

/**
 * Everything a pod enforces, as of one store revision: what it holds, saves to disk, and swaps in
 * whole, so it can never apply half a change. The watch feed sends one whole ({@link RuleChanges}
 * of kind snapshot, or bare to a pod that names no region) or the changes to one ({@link DeltaMerge}). {@code overrides} holds the overrides that were active when
 * the snapshot was served; a pod still drops each one at its {@code expires_at} by its own clock.
 *
 * @param revision      the store revision: pass it back as {@code since} to wait for the next change
 * @param rules         every rule, in every mode, ordered by id
 * @param overrides     the active account overrides
 * @param regionBudgets the shares of the budgeted keys, of the pod's region (every region's in a bare
 *                      snapshot); a pod applies its own region's
 * @param descriptorDomains how Envoy's descriptors map to the rules, per domain, ordered by domain
 */
public record RuleSnapshot(long revision, List<Rule> rules, List<AccountOverride> overrides, List<RegionBudget> regionBudgets,
                           List<DescriptorDomain> descriptorDomains) {

    public RuleSnapshot {
        rules = rules == null ? List.of() : List.copyOf(rules);
        overrides = overrides == null ? List.of() : List.copyOf(overrides);
        regionBudgets = regionBudgets == null ? List.of() : List.copyOf(regionBudgets);
        descriptorDomains = descriptorDomains == null ? List.of() : List.copyOf(descriptorDomains);
    }

    public RuleSnapshot(long revision, List<Rule> rules, List<AccountOverride> overrides, List<RegionBudget> regionBudgets) {
        this(revision, rules, overrides, regionBudgets, List.of());
    }

    /** The same snapshot without the overrides that have expired by {@code now}. */
    public RuleSnapshot activeAt(Instant now) {
        List<AccountOverride> active = overrides.stream().filter(o -> o.activeAt(now)).toList();
        return active.size() == overrides.size() ? this : new RuleSnapshot(revision, rules, active, regionBudgets, descriptorDomains);
    }
}
