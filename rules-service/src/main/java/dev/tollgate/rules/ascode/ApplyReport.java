package dev.tollgate.rules.ascode;

import dev.tollgate.rules.change.FieldChange;

import java.util.List;

/**
 * The answer of an apply, or of its dry run: what each object of the domain became (or would become), and the
 * domain's digest before and after, the {@code ETag} of {@code GET /v1/config:export}. A CI job that showed a
 * dry run's diff applies it with {@code If-Match: "<digest_before>"}, so that what it applies is what was shown.
 *
 * @param changes every object of the stored domain and of the file: rules by id, then the mapping, then the
 *                overrides by account and rule
 */
record ApplyReport(String domain, boolean dryRun, boolean changed, String digestBefore, String digestAfter, Summary summary,
                   List<ObjectChange> changes) {

    enum Kind { RULE, DESCRIPTORS, OVERRIDE }

    enum Outcome { CREATED, UPDATED, DELETED, UNCHANGED }

    record Summary(int created, int updated, int deleted, int unchanged) {

        static Summary of(List<ObjectChange> changes) {
            return new Summary(count(changes, Outcome.CREATED), count(changes, Outcome.UPDATED), count(changes, Outcome.DELETED),
                    count(changes, Outcome.UNCHANGED));
        }

        private static int count(List<ObjectChange> changes, Outcome outcome) {
            return (int) changes.stream().filter(change -> change.outcome() == outcome).count();
        }
    }

    /**
     * One object: a rule ({@code id} its id), the domain's mapping ({@code id} the domain) or an override
     * ({@code account_id} and {@code rule_id}).
     *
     * @param fields for an update, each field that changes, as the API names it; else none
     */
    record ObjectChange(Kind kind, String id, String accountId, String ruleId, Outcome outcome, List<FieldChange> fields) {
    }

    static ApplyReport of(String domain, boolean dryRun, String digestBefore, String digestAfter, List<ObjectChange> changes) {
        Summary summary = Summary.of(changes);
        return new ApplyReport(domain, dryRun, summary.created() + summary.updated() + summary.deleted() > 0, digestBefore, digestAfter,
                summary, changes);
    }
}
