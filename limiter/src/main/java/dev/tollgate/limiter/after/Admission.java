package dev.tollgate.limiter.after;

/** What the pod answers on its own for a count-after key group, as a value. */
public sealed interface Admission {

    /** Admitted and counted, to be flushed: {@code left} is what the pod may still admit of the tightest limit before its next answer. */
    record Admitted(long left) implements Admission {
    }

    /** The store said a limit of the group is over: denied on the pod, for {@code retryMs}. */
    record Over(String ruleId, long retryMs) implements Admission {
    }

    /**
     * The pod cannot answer alone: its allowance for the key until its next flush answer is spent, or its map of
     * pending counts is full. The group is checked inline (a store call), which is exact, and bursts still pass.
     */
    record Inline(Reason reason) implements Admission {
    }

    /** The key's shard has not taken a flush for longer than the fail-closed wait: a fail-closed rule denies. */
    record StoreGone(String shard) implements Admission {
    }

    enum Reason { ALLOWANCE_SPENT, PENDING_FULL }
}
