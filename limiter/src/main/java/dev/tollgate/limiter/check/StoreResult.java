package dev.tollgate.limiter.check;

import dev.tollgate.store.StoreException;
import dev.tollgate.store.script.GroupReply;
import dev.tollgate.store.script.ScriptCall;

/** What one group's store call came to, as a value: the store's reply, or why there is none. */
sealed interface StoreResult {

    /** The store answered: the call as sent (a fixed window may have been renamed) and its reply. */
    record Replied(ScriptCall call, GroupReply reply) implements StoreResult {
    }

    /** The store did not answer in time, or could not be asked. */
    record Failed(StoreException error) implements StoreResult {
    }
}
