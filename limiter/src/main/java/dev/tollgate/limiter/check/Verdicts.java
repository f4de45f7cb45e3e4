package dev.tollgate.limiter.check;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.EntryResult;
import dev.tollgate.common.check.Verdict;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.Outcome;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.usage.UsageSink;
import dev.tollgate.store.CounterStore;
import dev.tollgate.store.script.Refunds;
import dev.tollgate.store.script.ScriptCall;
import dev.tollgate.store.script.Spend;
import io.micrometer.core.instrument.Timer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The check's last stage, and the one place its groups' answers become its {@link Outcome}: per entry, with the
 * decision metrics and the usage report; and, when the request is not admitted after all, what the groups that
 * admitted it spent is given back, each from where {@link Spent} says it was paid.
 */
final class Verdicts {

    private final LocalStage local;
    private final AfterStage after;
    private final FailModes failModes;
    private final CounterStore store;
    private final LimiterMetrics metrics;
    private final UsageSink usage;

    Verdicts(LocalStage local, AfterStage after, FailModes failModes, CounterStore store, LimiterMetrics metrics, UsageSink usage) {
        this.local = local;
        this.after = after;
        this.failModes = failModes;
        this.store = store;
        this.metrics = metrics;
        this.usage = usage;
    }

    Outcome write(Timer.Sample sample, List<CheckEntry> entries, Grouping grouping, GroupAnswer[] answers) {
        List<KeyGroup> groups = grouping.groups();
        Optional<Outcome.FailedClosed> closed = failedClosed(answers);
        if (closed.isPresent()) {
            refundAdmitted(groups, answers);
            return closed.get();
        }
        EntryResult[] results = grouping.results();
        Rule[] applied = new Rule[results.length];
        for (int g = 0; g < answers.length; g++) {
            GroupAnswer.Checked answer = (GroupAnswer.Checked) answers[g];
            KeyGroup group = groups.get(g);
            List<Spend> spends = group.spends();
            for (int i = 0; i < group.size(); i++) {
                // the quota is the limit the entry was measured against, for the RateLimit headers
                EntryResult result = answer.results().get(i).withQuotaOf(group.rule(i));
                metrics.decided(result.rule(), result.verdict());
                metrics.hit(group.rule(i), result.verdict(), group.cost(i), result.remaining(), spends.get(i).share());
                long cost = 0;
                for (int entry : group.entryIndexes(i)) {
                    results[entry] = result;
                    applied[entry] = group.rule(i);
                    cost += entries.get(entry).costValue();
                }
                if (result.unknownRule() == null && group.rule(i) != null && cost > 0) {
                    usage.checked(result.rule(), group.key(), cost, result.verdict() == Verdict.DENY);
                }
                if (result.verdict() == Verdict.DENY) {
                    if (group.shadow()) {
                        metrics.shadowDenied(result.rule());
                        usage.shadowDenied(result.rule(), cost);
                    }
                    usage.denied(result.rule(), group.rule(i).version(), group.shadow(), cost);
                }
            }
        }
        CheckResponse response = CheckResponse.of(Arrays.asList(results));
        metrics.checked(sample, response.verdict());
        if (response.allowed()) {
            recordUsage(entries, results, applied);
        } else {
            refundAdmitted(groups, answers);
        }
        return new Outcome.Answered(response);
    }

    /** The groups that failed closed, if any did, as one outcome naming all their entries. */
    private static Optional<Outcome.FailedClosed> failedClosed(GroupAnswer[] answers) {
        Outcome.FailedClosed first = null;
        // built only when a group failed closed: the answered check allocates nothing here
        TreeMap<Integer, String> rulesByEntry = null;
        for (GroupAnswer answer : answers) {
            if (answer instanceof GroupAnswer.Closed closed) {
                Outcome.FailedClosed failure = closed.failure();
                if (rulesByEntry == null) {
                    first = failure;
                    rulesByEntry = new TreeMap<>();
                }
                for (int i = 0; i < failure.entries().size(); i++) {
                    rulesByEntry.put(failure.entries().get(i), failure.rules().get(i));
                }
            }
        }
        return rulesByEntry == null ? Optional.empty()
                : Optional.of(new Outcome.FailedClosed(first.cause(), first.reason(), new ArrayList<>(rulesByEntry.keySet()), new ArrayList<>(rulesByEntry.values())));
    }

    /**
     * A denied request spends nothing: every key group that admitted it gives back what it spent. The limits of one
     * key are all-or-nothing in their script already; this covers the groups on other keys (an account bucket
     * beside a per-IP login log), which Redis Cluster cannot put in one script.
     */
    private void refundAdmitted(List<KeyGroup> groups, GroupAnswer[] answers) {
        for (int g = 0; g < answers.length; g++) {
            if (answers[g] instanceof GroupAnswer.Checked checked && checked.admitted()) {
                giveBack(groups.get(g), checked.spent());
            }
        }
    }

    private void giveBack(KeyGroup group, Spent spent) {
        if (spent instanceof Spent.InStore inStore) {
            local.refund(group);
            if (local.giveBackToLease(group)) {
                metrics.refunded("lease");
            } else {
                giveBackToStore(Refunds.of(inStore.call(), group.spends(), inStore.reply()));
            }
        } else if (spent instanceof Spent.OnLease) {
            local.giveBackToLease(group);
            local.refund(group);
        } else if (spent instanceof Spent.InFallback) {
            failModes.giveBack(group);
            local.refund(group);
        } else if (spent instanceof Spent.AfterCount) {
            after.giveBack(group);
        }
    }

    /**
     * Takes a spend back in the store. Not awaited: the check's answer does not wait for it, so the spend is visible
     * to other checks for about one round trip; a refund that fails leaves the spend standing (the key under-admits
     * by that one request), and is counted.
     */
    private void giveBackToStore(ScriptCall refund) {
        try {
            store.run(refund.script(), refund.keys(), refund.args())
                    .whenComplete((reply, error) -> metrics.refunded(error == null ? "ok" : "failed"));
        } catch (RuntimeException e) {
            metrics.refunded("failed");
        }
    }

    /**
     * Admitted spends of enforced rules whose limits are split across regions, for the region's usage report: what
     * the budget rebalancer splits by (shadow and unknown rules spend nothing real). Nothing else is reported, so
     * keys a caller chooses (per-IP limits, login logs) cost no memory here, no place under the recorder's cap on
     * keys per interval, and no Redis write.
     */
    private void recordUsage(List<CheckEntry> entries, EntryResult[] results, Rule[] applied) {
        for (int i = 0; i < results.length; i++) {
            EntryResult result = results[i];
            if (result.verdict() == Verdict.ALLOW && result.unknownRule() == null && result.shadow() == null
                    && applied[i] != null && applied[i].regionBudgeted() && entries.get(i).costValue() > 0) {
                usage.admitted(result.rule(), entries.get(i).key(), entries.get(i).costValue());
            }
        }
    }
}
