package dev.tollgate.rules.simulate;

import java.time.Instant;
import java.util.List;

/**
 * The answer of a simulation: what the rule's recorded checks were, what the rule in force denied of them, what the
 * proposed rule would have denied, and how far off that can be. Counts are of cost units, for every key of the rule:
 * a sampled rule's numbers are its sample's times {@code sampling.scale}.
 *
 * @param span          the span replayed, in seconds: whole 10 s windows that had closed when asked
 * @param errorBound    the most {@code deniedProposed} can be off by, either way, from the unknown order of the checks
 *                      inside each window (see {@link Replay}); scaled as the counts are
 * @param assumption    the assumption in words, for the person reading the answer
 */
public record Simulation(String ruleId, Instant from, Instant to, long span, int windows, long checks, long deniedNow,
                         long deniedProposed, long errorBound, String assumption, Sampling sampling,
                         List<KeyImpact> keys, List<Bucket> buckets) {

    /**
     * @param level      the sampling level the span was read at: 1 in 2^level of the rule's keys were recorded
     * @param scale      what a sampled key's numbers are multiplied by in the totals (2^level)
     * @param keysSampled the keys replayed
     */
    public record Sampling(int level, long scale, int keysSampled) {
    }

    /** One key's numbers (unscaled: its own), most affected first. */
    public record KeyImpact(String key, long checks, long deniedNow, long deniedProposed, long errorBound) {
    }

    /** One 10 s window of the span (scaled as the totals). */
    public record Bucket(Instant from, long checks, long deniedNow, long deniedProposed) {
    }
}
