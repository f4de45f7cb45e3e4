package dev.tollgate.limiter.check;

import dev.tollgate.common.check.EntryResult;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.store.StoreException;
import dev.tollgate.store.script.GroupReply;
import dev.tollgate.store.script.Spend;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The check's second stage: the group's {@link ShardCall}, bounded by the check's deadline; the store's reply
 * becomes the group's answer, and a failure or the deadline the rule's fail mode. The call itself is never cut
 * short here: what the pod learns from it runs whenever it ends.
 */
final class StoreStage {

    private static final StoreException DEADLINE =
            new StoreException(StoreException.Kind.TIMEOUT, "deadline", "the store did not answer within the check's deadline", null);
    private static final StoreResult.Failed PAST_DEADLINE = new StoreResult.Failed(DEADLINE);

    private final ShardCall calls;
    private final LocalStage local;
    private final FailModes failModes;
    private final LimiterMetrics metrics;
    private final LongSupplier nanoTime;

    StoreStage(ShardCall calls, LocalStage local, FailModes failModes, LimiterMetrics metrics, LongSupplier nanoTime) {
        this.calls = calls;
        this.local = local;
        this.failModes = failModes;
        this.metrics = metrics;
        this.nanoTime = nanoTime;
    }

    /** The group's answer from the store, else from the fail mode; never completes exceptionally. */
    CompletableFuture<GroupAnswer> answer(KeyGroup group, long deadline) {
        long left = deadline - nanoTime.getAsLong();
        if (left <= 0) {
            // a waiter released after its deadline (its lease call answered late): it gets the fail mode whatever
            // the store says now, so a spend made for it would only be lost
            return CompletableFuture.completedFuture(fallBack(group, PAST_DEADLINE));
        }
        CompletableFuture<StoreResult> spent = calls.spend(group);
        return Deadlines.within(spent, left, PAST_DEADLINE).thenApply(result -> result instanceof StoreResult.Replied replied
                ? fromStore(group, replied)
                : fallBack(group, (StoreResult.Failed) result));
    }

    private GroupAnswer fromStore(KeyGroup group, StoreResult.Replied replied) {
        GroupReply reply = replied.reply();
        long leaseLeft = Math.max(0, reply.granted() - 1);
        List<Spend> spends = group.spends();
        if (!reply.allowed()) {
            // nothing was spent; each entry still says what its own limit would have answered (a look, cost 0,
            // asked about one more request)
            return GroupAnswer.of(group, i -> reply.remaining()[i] >= Math.max(1, spends.get(i).cost())
                    ? EntryResult.allowed(group.rule(i).id(), reply.remaining()[i], reply.resetMs()[i])
                    : EntryResult.denied(group.rule(i).id(), reply.remaining()[i], reply.resetMs()[i], reply.retryMs()));
        }
        return GroupAnswer.of(group, i -> EntryResult.allowed(group.rule(i).id(),
                        LocalStage.podView(reply.remaining()[i], leaseLeft, spends.get(i).cost()), reply.resetMs()[i]),
                new Spent.InStore(replied.call(), reply));
    }

    /** A failed store call's answer: the rule's fail mode; one past its deadline is counted as such. */
    private GroupAnswer fallBack(KeyGroup group, StoreResult.Failed failed) {
        if (failed == PAST_DEADLINE) {
            metrics.deadlineExceeded();
        }
        GroupAnswer answer = failModes.answer(group, failed.error());
        if (!(answer instanceof GroupAnswer.Checked checked && checked.admitted())) {
            // not admitted: the local-first bucket gets back what the request took from it
            local.refund(group);
        }
        return answer;
    }
}
