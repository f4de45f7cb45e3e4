package dev.tollgate.bench.soak;

/**
 * One fault of the soak, as it happened.
 *
 * @param shard      the shard (0–2, by slot range) the fault hit; -1 for a pod
 * @param start      seconds from the soak's start
 * @param recovered  when the cluster was healthy again, or the pod gave its first enforced verdict again
 * @param windowEnd  where the fault's window ends for the ledger: some seconds after recovery, for the clients to follow
 *                   (it starts {@link #LEAD_SECONDS} before the fault: a check due then may still be in flight when it strikes)
 * @param detail     what the recovery did, as measured (failover, the old primary's role, the pod's start)
 */
record Fault(int number, Kind kind, String target, int shard, double start, double recovered, double windowEnd, String detail) {

    /** The response timeout: the longest a check due before the fault can still be waiting for its answer when it strikes. */
    static final double LEAD_SECONDS = SoakLoad.RESPONSE_TIMEOUT.toSeconds();

    /** Where the fault's window starts in the ledger. */
    double windowStart() {
        return Math.max(0, start - LEAD_SECONDS);
    }

    /** The faults take turns in this order. */
    enum Kind {
        FREEZE_PRIMARY("SIGSTOP a primary for 10 s, then SIGCONT"),
        KILL_PRIMARY("SIGKILL a primary, then start it again (it rejoins as a replica)"),
        KILL_POD("SIGKILL a pod, then start it again");

        final String label;

        Kind(String label) {
            this.label = label;
        }

        static Kind of(int number) {
            return values()[(number - 1) % values().length];
        }
    }

    /** The fault times of a soak: one every period from the first period on, none too close to the end. */
    static double[] schedule(SoakOptions options) {
        int count = (int) Math.floor((options.seconds() - options.lastFaultMargin()) / options.faultEverySeconds() + 1e-9);
        double[] at = new double[Math.max(0, count)];
        for (int i = 0; i < at.length; i++) {
            at[i] = (i + 1) * options.faultEverySeconds();
        }
        return at;
    }
}
