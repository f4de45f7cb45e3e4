package dev.tollgate.limiter.check;

import dev.tollgate.common.check.EntryResult;
import dev.tollgate.limiter.Explanation;
import dev.tollgate.limiter.after.Admission;
import dev.tollgate.limiter.after.CountAfter;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.store.StoreException;

import java.util.Optional;

/**
 * The check's stage for key groups whose rules all count after, ahead of the others: the pod answers from
 * {@link CountAfter} with no store call, or hands the group on to the inline stages (its allowance until the next
 * flush answer is spent, its map of pending counts is full, or it mixes inline rules). A fail-closed rule whose
 * shard has taken no flush for the fail-closed wait gets its fail mode here.
 */
final class AfterStage {

    private static final StoreException FLUSHES_FAILING = new StoreException(StoreException.Kind.UNAVAILABLE, "count_after_flushes_failing",
            "the shard has taken none of this pod's count-after flushes for the fail-closed wait", null);

    private final CountAfter counts;
    private final FailModes failModes;
    private final LimiterMetrics metrics;

    AfterStage(CountAfter counts, FailModes failModes, LimiterMetrics metrics) {
        this.counts = counts;
        this.failModes = failModes;
        this.metrics = metrics;
    }

    /** The group's answer from the pod, when it counts after and the pod can give one. */
    Optional<GroupAnswer> answer(KeyGroup group) {
        if (!group.countsAfter()) {
            return Optional.empty();
        }
        Admission admission = counts.admit(group.key(), group.spends(), !group.shadow() && FailModes.failsClosed(group));
        if (admission instanceof Admission.Admitted admitted) {
            countByRule(group, "count_after");
            // remaining: what this pod may still admit on its own before its next flush answer
            return Optional.of(GroupAnswer.of(group, i -> EntryResult.allowed(group.rule(i).id(), admitted.left(), 0), Spent.AFTER_COUNT));
        }
        if (admission instanceof Admission.Over over) {
            countByRule(group, "count_after_over");
            return Optional.of(GroupAnswer.of(group, i -> EntryResult.denied(group.rule(i).id(), 0, over.retryMs(), over.retryMs())));
        }
        if (admission instanceof Admission.StoreGone) {
            return Optional.of(failModes.answer(group, FLUSHES_FAILING));
        }
        if (admission instanceof Admission.Inline inline && inline.reason() == Admission.Reason.PENDING_FULL) {
            metrics.countAfterInline();
        }
        return Optional.empty();
    }

    /** What {@link #answer} would answer now, counting nothing: explain's view (empty: the group goes on inline). */
    Optional<LocalStage.Look> look(KeyGroup group) {
        if (!group.countsAfter()) {
            return Optional.empty();
        }
        Admission admission = counts.look(group.key(), group.spends(), !group.shadow() && FailModes.failsClosed(group));
        if (admission instanceof Admission.Admitted admitted) {
            return Optional.of(new LocalStage.Look(Explanation.Stage.COUNT_AFTER, true, "the rule counts after: the pod admits on its own"
                    + " count (the store counts it at the next flush), " + admitted.left() + " more before its next flush answer"));
        }
        if (admission instanceof Admission.Over over) {
            return Optional.of(new LocalStage.Look(Explanation.Stage.COUNT_AFTER, false, "the rule counts after, and the pod's last flush"
                    + " answer said rule " + over.ruleId() + " is over for this key: denied on the pod for " + over.retryMs() + " ms"));
        }
        if (admission instanceof Admission.StoreGone gone) {
            return Optional.of(new LocalStage.Look(Explanation.Stage.FAIL_MODE, false, "shard " + gone.shard() + " has taken none of"
                    + " this pod's count-after flushes for the fail-closed wait, and a rule of the group fails closed, so the check is denied"));
        }
        return Optional.empty();
    }

    /** Takes back a request the group admitted when another group of the check denied it. */
    void giveBack(KeyGroup group) {
        counts.giveBack(group.key(), group.spends());
    }

    private void countByRule(KeyGroup group, String answer) {
        for (int i = 0; i < group.size(); i++) {
            metrics.localAnswer(group.rule(i), answer);
        }
    }
}
