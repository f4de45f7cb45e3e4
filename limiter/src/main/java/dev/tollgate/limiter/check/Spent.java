package dev.tollgate.limiter.check;

import dev.tollgate.store.script.GroupReply;
import dev.tollgate.store.script.ScriptCall;

/**
 * Where a key group's admitted request was paid from, as data: whoever paid knows how to give it back, and
 * {@link Verdicts} does when another group of the check denies the request. The pod's local-first bucket,
 * which every bucket group passes first, is given back in each case.
 */
sealed interface Spent {

    /** Nothing to give back: the group denied, or a shadow group's deny spent nothing. */
    Spent NOTHING = new Nothing();
    /** One request from the pod's lease. */
    Spent ON_LEASE = new OnLease();
    /** One request from the pod's fallback bucket, the store being out of reach. */
    Spent IN_FALLBACK = new InFallback();

    record Nothing() implements Spent {
    }

    record OnLease() implements Spent {
    }

    record InFallback() implements Spent {
    }

    /** Counted on the pod under count-after rules, not yet (or just) sent to the store. */
    Spent AFTER_COUNT = new AfterCount();

    record AfterCount() implements Spent {
    }

    /** Spent by this script call in the store, as the reply says. */
    record InStore(ScriptCall call, GroupReply reply) implements Spent {
    }
}
