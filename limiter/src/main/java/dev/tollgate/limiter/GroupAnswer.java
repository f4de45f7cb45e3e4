package dev.tollgate.limiter;

import dev.tollgate.common.check.EntryResult;
import dev.tollgate.common.check.Verdict;
import dev.tollgate.limiter.store.StoreException;

import java.util.List;
import java.util.function.IntFunction;

/**
 * What one key group answered, as a value: a result per rule of the group (in the group's order), or
 * the store failure that fails a fail-closed check. Every stage of a check (local answers, the store,
 * the fail mode) returns one; only {@link Limiter} writes them into the response.
 */
record GroupAnswer(List<EntryResult> results, StoreException failure) {

    static GroupAnswer of(KeyGroup group, IntFunction<EntryResult> result) {
        EntryResult[] results = new EntryResult[group.size()];
        for (int i = 0; i < results.length; i++) {
            EntryResult entry = result.apply(i);
            results[i] = group.shadow() ? entry.asShadow() : entry;
        }
        return new GroupAnswer(List.of(results), null);
    }

    static GroupAnswer failedClosed(StoreException failure) {
        return new GroupAnswer(List.of(), failure);
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
