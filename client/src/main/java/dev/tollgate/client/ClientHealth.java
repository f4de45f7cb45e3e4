package dev.tollgate.client;

/**
 * What the client can reach now, for a health check or a status page.
 *
 * @param knownPods the pods its pod source lists
 * @param downPods  how many of them are marked down after a failure (skipped until their probe)
 * @param source    the pod source, as it describes itself (a DNS name, a fixed list)
 */
public record ClientHealth(int knownPods, int downPods, String source) {

    /**
     * False when no pod is known: every check is then answered by the fail mode ({@link ClientFallback.Reason#NO_PODS}),
     * the limit is not enforced, and nothing but this and the client's warning says so. Pods known but all marked down
     * still count as reachable: each is probed again within {@code podDownForAtMost}.
     */
    public boolean podsKnown() {
        return knownPods > 0;
    }
}
