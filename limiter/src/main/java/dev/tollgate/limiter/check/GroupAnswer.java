package dev.tollgate.limiter.check;

import dev.tollgate.common.check.EntryResult;
import dev.tollgate.common.check.Verdict;
import dev.tollgate.limiter.Outcome;

import java.util.List;
import java.util.function.IntFunction;

/**
 * What one key group answered, as a value. Every stage (the pod's local answers, the store, the fail mode)
 * returns one; only {@link Verdicts} writes them into the check's outcome.
 */
sealed interface GroupAnswer {

    /**
     * A result per rule of the group, in the group's order, and what answering spent: what {@link Verdicts}
     * gives back when another group of the check denies the request.
     */
    record Checked(List<EntryResult> results, Spent spent) implements GroupAnswer {

        /** Whether the group's own limits admitted the request (a shadow group's too, though it never denies one). */
        boolean admitted() {
            for (EntryResult result : results) {
                if (result.verdict() != Verdict.ALLOW) {
                    return false;
                }
            }
            return true;
        }
    }

    /** A fail-closed rule of the group could not reach its shard: the whole check is denied. */
    record Closed(Outcome.FailedClosed failure) implements GroupAnswer {
    }

    /** A group answered without spending anything (a deny). */
    static Checked of(KeyGroup group, IntFunction<EntryResult> result) {
        return of(group, result, Spent.NOTHING);
    }

    static Checked of(KeyGroup group, IntFunction<EntryResult> result, Spent spent) {
        EntryResult[] results = new EntryResult[group.size()];
        for (int i = 0; i < results.length; i++) {
            EntryResult entry = result.apply(i);
            results[i] = group.shadow() ? entry.asShadow() : entry;
        }
        return new Checked(List.of(results), spent);
    }
}
