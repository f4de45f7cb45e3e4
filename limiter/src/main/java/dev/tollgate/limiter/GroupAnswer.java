package dev.tollgate.limiter;

import dev.tollgate.common.check.EntryResult;
import dev.tollgate.common.check.Verdict;
import dev.tollgate.store.StoreException;

import java.util.List;
import java.util.function.IntFunction;

/**
 * What one key group answered, as a value: a result per rule of the group (in the group's order), or
 * the store failure that fails a fail-closed check. Every stage of a check (local answers, the store,
 * the fail mode) returns one; only {@link Limiter} writes them into the response.
 */
record GroupAnswer(List<EntryResult> results, StoreException failure, Refund refund) {

    /**
     * Gives back what the group spent, when another group of the check denied the request. Whoever
     * spent (the store, a lease, a fallback bucket) knows how to give it back.
     */
    @FunctionalInterface
    interface Refund {

        Refund NONE = () -> {
        };

        void run();
    }

    static GroupAnswer of(KeyGroup group, IntFunction<EntryResult> result) {
        return of(group, result, Refund.NONE);
    }

    static GroupAnswer of(KeyGroup group, IntFunction<EntryResult> result, Refund refund) {
        EntryResult[] results = new EntryResult[group.size()];
        for (int i = 0; i < results.length; i++) {
            EntryResult entry = result.apply(i);
            results[i] = group.shadow() ? entry.asShadow() : entry;
        }
        return new GroupAnswer(List.of(results), null, refund);
    }

    static GroupAnswer failedClosed(StoreException failure) {
        return new GroupAnswer(List.of(), failure, Refund.NONE);
    }

    /** The same answer, giving back {@code more} too when refunded. */
    GroupAnswer alsoRefunding(Refund more) {
        Refund first = refund;
        return new GroupAnswer(results, failure, () -> {
            first.run();
            more.run();
        });
    }

    boolean failed() {
        return failure != null;
    }

    /** Whether the group's own limits admitted the request (a shadow group's too, though it never denies one). */
    boolean admitted() {
        if (failed()) {
            return false;
        }
        for (EntryResult result : results) {
            if (result.verdict() != Verdict.ALLOW) {
                return false;
            }
        }
        return true;
    }
}
