package dev.tollgate.common.rule;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.tollgate.common.descriptor.DescriptorDomain;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

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
 * @param canaries      the canary versions of rules, ordered by id: each one the next version of the rule of its id,
 *                      enforced instead of it only by canary pods ({@link #enforcedBy}); left out of the JSON when
 *                      there are none, so a snapshot without canaries keeps its bytes and older pods can read it
 */
public record RuleSnapshot(long revision, List<Rule> rules, List<AccountOverride> overrides, List<RegionBudget> regionBudgets,
                           List<DescriptorDomain> descriptorDomains,
                           @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Rule> canaries) {

    public RuleSnapshot {
        rules = rules == null ? List.of() : List.copyOf(rules);
        overrides = overrides == null ? List.of() : List.copyOf(overrides);
        regionBudgets = regionBudgets == null ? List.of() : List.copyOf(regionBudgets);
        descriptorDomains = descriptorDomains == null ? List.of() : List.copyOf(descriptorDomains);
        canaries = canaries == null ? List.of() : List.copyOf(canaries);
    }

    public RuleSnapshot(long revision, List<Rule> rules, List<AccountOverride> overrides, List<RegionBudget> regionBudgets,
                        List<DescriptorDomain> descriptorDomains) {
        this(revision, rules, overrides, regionBudgets, descriptorDomains, List.of());
    }

    public RuleSnapshot(long revision, List<Rule> rules, List<AccountOverride> overrides, List<RegionBudget> regionBudgets) {
        this(revision, rules, overrides, regionBudgets, List.of(), List.of());
    }

    /** The same snapshot without the overrides that have expired by {@code now}. */
    public RuleSnapshot activeAt(Instant now) {
        List<AccountOverride> active = overrides.stream().filter(o -> o.activeAt(now)).toList();
        return active.size() == overrides.size() ? this : new RuleSnapshot(revision, rules, active, regionBudgets, descriptorDomains, canaries);
    }

    /**
     * What a pod enforces of this snapshot: a canary pod ({@code tollgate.rules.canary}) each rule's canary version
     * in its place, any other pod the rules as promoted; either way without the canaries, which are then in force or
     * not at all. A canary whose rule is not here is left out: it is the next version of a rule, never a rule of its own.
     */
    public RuleSnapshot enforcedBy(boolean canaryPod) {
        if (canaries.isEmpty()) {
            return this;
        }
        if (!canaryPod) {
            return new RuleSnapshot(revision, rules, overrides, regionBudgets, descriptorDomains, List.of());
        }
        Map<String, Rule> byId = canaries.stream().collect(Collectors.toMap(Rule::id, Function.identity(), (first, second) -> first));
        List<Rule> enforced = new ArrayList<>(rules.size());
        for (Rule rule : rules) {
            enforced.add(byId.getOrDefault(rule.id(), rule));
        }
        return new RuleSnapshot(revision, enforced, overrides, regionBudgets, descriptorDomains, List.of());
    }
}
