package dev.tollgate.rules.envoy;

import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.descriptor.DescriptorNode;
import dev.tollgate.common.envoy.EnvoyConfig.Note;
import dev.tollgate.common.rule.Rule;

import java.util.List;

/**
 * The answer of an import: what it created (or, in a dry run, would create) and what it found stored as the
 * file has it, and what of the file Tollgate does not do.
 *
 * @param descriptors the domain's mapping as stored; none when the file has no descriptors
 * @param notMapped   what of the file is not mapped as written, and what happens instead
 */
record ImportReport(String domain, boolean dryRun, List<RuleOutcome> rules, MappingOutcome descriptors, List<Note> notMapped) {

    /** {@code KEPT}: a rule stored with the file's limit and other settings chosen since, left as it is. */
    enum Outcome { CREATED, REPLACED, UNCHANGED, KEPT }

    /**
     * One rule of the file: its id, whether the import created it, and the rule as stored (or as it would be).
     *
     * @param differences for a kept rule, how it differs from the file's (the rules API's names); else none
     */
    record RuleOutcome(String id, Outcome outcome, Rule rule, String differences) {
    }

    /** The domain's mapping as stored (or as it would be), at its version, its {@code ETag} on {@code GET /v1/descriptors/{domain}}. */
    record MappingOutcome(String domain, long version, Outcome outcome, List<DescriptorNode> descriptors) {

        static MappingOutcome of(DescriptorDomain mapping, Outcome outcome) {
            return new MappingOutcome(mapping.domain(), mapping.version(), outcome, mapping.descriptors());
        }
    }

    /** Whether the import wrote anything (a dry run: would have). */
    boolean wroteSomething() {
        return rules.stream().anyMatch(rule -> rule.outcome() == Outcome.CREATED)
                || (descriptors != null && descriptors.outcome() != Outcome.UNCHANGED);
    }
}
