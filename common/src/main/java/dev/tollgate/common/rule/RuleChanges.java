package dev.tollgate.common.rule;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.tollgate.common.descriptor.DescriptorDomain;

import java.util.List;

/**
 * What rules-service's watch feed answers a pod that names its region ({@code GET /v1/watch?since=R&region=X}):
 * either the changes after the revision the pod holds ({@link Kind#DELTA}, from {@code from} to {@code revision}),
 * or everything ({@link Kind#SNAPSHOT}) when the pod holds nothing the feed can build on. Either way only
 * the region's own budget rows. A pod applies a delta to the snapshot it holds ({@link DeltaMerge}) and
 * checks the result as it checks a snapshot, so the result is enforced whole or not at all.
 *
 * @param kind          a delta or a whole snapshot; absent (an older rules-service, which answers a bare
 *                      {@link RuleSnapshot}) means a snapshot
 * @param from          for a delta, the revision it applies to: the pod's {@code since}
 * @param revision      the revision the pod holds once this is applied: its next {@code since}
 * @param region        the region whose budget rows this carries; a snapshot without one carries every region's
 * @param rules         for a delta, the rules created or changed after {@code from}; for a snapshot, all
 * @param overrides     likewise the overrides (a delta may carry one that has expired since)
 * @param regionBudgets likewise the region's budget rows
 * @param descriptorDomains likewise the descriptor mappings
 * @param canaries      likewise the rules' canary versions ({@link RuleSnapshot#canaries}); left out of the JSON when none
 * @param deleted       for a delta, what went after {@code from}; a rule's overrides, budget rows and canary go with it
 */
public record RuleChanges(Kind kind, Long from, long revision, String region, List<Rule> rules, List<AccountOverride> overrides,
                          List<RegionBudget> regionBudgets, List<DescriptorDomain> descriptorDomains,
                          @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Rule> canaries, Deleted deleted) {

    public enum Kind { SNAPSHOT, DELTA }

    /**
     * The keys of what went; a budget row's region is the answer's.
     *
     * @param canaries the ids of the rules whose canary went (promoted or rolled back) while the rule stays
     */
    public record Deleted(List<String> rules, List<OverrideKey> overrides, List<BudgetKey> regionBudgets,
                          List<String> descriptorDomains, @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> canaries) {

        public static final Deleted NOTHING = new Deleted(List.of(), List.of(), List.of(), List.of(), List.of());

        public Deleted {
            rules = rules == null ? List.of() : List.copyOf(rules);
            overrides = overrides == null ? List.of() : List.copyOf(overrides);
            regionBudgets = regionBudgets == null ? List.of() : List.copyOf(regionBudgets);
            descriptorDomains = descriptorDomains == null ? List.of() : List.copyOf(descriptorDomains);
            canaries = canaries == null ? List.of() : List.copyOf(canaries);
        }

        public int size() {
            return rules.size() + overrides.size() + regionBudgets.size() + descriptorDomains.size() + canaries.size();
        }
    }

    public record OverrideKey(String accountId, String ruleId) {
    }

    public record BudgetKey(String ruleId, String limitKey) {
    }

    public RuleChanges {
        rules = rules == null ? List.of() : List.copyOf(rules);
        overrides = overrides == null ? List.of() : List.copyOf(overrides);
        regionBudgets = regionBudgets == null ? List.of() : List.copyOf(regionBudgets);
        descriptorDomains = descriptorDomains == null ? List.of() : List.copyOf(descriptorDomains);
        canaries = canaries == null ? List.of() : List.copyOf(canaries);
        if (kind == Kind.DELTA && from == null) {
            throw new IllegalArgumentException("a delta names the revision it applies to (from)");
        }
        if (kind == Kind.DELTA && region == null) {
            throw new IllegalArgumentException("a delta names its region: its budget deletions are that region's");
        }
    }

    /** Everything in {@code snapshot}, whose budget rows are {@code region}'s (every region's when null). */
    public static RuleChanges snapshot(RuleSnapshot snapshot, String region) {
        return new RuleChanges(Kind.SNAPSHOT, null, snapshot.revision(), region, snapshot.rules(), snapshot.overrides(),
                snapshot.regionBudgets(), snapshot.descriptorDomains(), snapshot.canaries(), null);
    }

    public static RuleChanges delta(long from, long revision, String region, List<Rule> rules, List<AccountOverride> overrides,
                                    List<RegionBudget> regionBudgets, List<DescriptorDomain> descriptorDomains, List<Rule> canaries,
                                    Deleted deleted) {
        return new RuleChanges(Kind.DELTA, from, revision, region, rules, overrides, regionBudgets, descriptorDomains, canaries, deleted);
    }

    /** Whether this replaces what a pod holds instead of changing it. */
    public boolean replacesAll() {
        return kind != Kind.DELTA;
    }

    /** What went; nothing for a snapshot. */
    public Deleted deletions() {
        return deleted == null ? Deleted.NOTHING : deleted;
    }

    /** Rows this carries, deletions included: what the feed's size cap counts before it writes a byte. */
    public int rowCount() {
        return rules.size() + overrides.size() + regionBudgets.size() + descriptorDomains.size() + canaries.size() + deletions().size();
    }

    /** This snapshot as a pod holds it; only for {@link #replacesAll()}. */
    public RuleSnapshot toSnapshot() {
        if (!replacesAll()) {
            throw new IllegalStateException("a delta is not a snapshot: apply it to one with DeltaMerge");
        }
        return new RuleSnapshot(revision, rules, overrides, regionBudgets, descriptorDomains, canaries);
    }
}
