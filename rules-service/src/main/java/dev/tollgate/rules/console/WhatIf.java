package dev.tollgate.rules.console;

import dev.tollgate.rules.simulate.Simulation;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The "what if" panel of a rule's page, from a {@link Simulation}: the one place the page meets that type. Either a
 * proposal (the edit form's values, not saved) or the shadow rule as it stands, enforced.
 *
 * @param enforcing   true for a shadow rule's "what if it were enforced", whose recorded would-be denies are the answer
 * @param unavailable why it could not run (the region's Redis cannot be read); null when it ran, and then nothing else is
 */
record WhatIf(boolean enforcing, String span, String unavailable, Numbers numbers) {

    /** The spans the panel offers; the simulator takes 10 s to 1 h. */
    static final List<String> SPANS = List.of("15m", "1h");
    private static final int KEYS = 10;
    /** Windows listed where it would bite: the ones most affected, in time order. */
    private static final int WINDOWS = 20;

    /**
     * @param keys          the most affected keys, their own (unsampled) numbers
     * @param windows       the 10 s windows where it would bite (see {@link #bite}), at most {@link #WINDOWS}
     * @param windowsBitten how many windows it bites in all
     */
    record Numbers(Instant from, Instant to, long checks, long deniedNow, long deniedProposed, long errorBound,
                   String sampling, List<Simulation.KeyImpact> keys, List<Simulation.Bucket> windows, int windowsBitten) {
    }

    /** The span as the form sent it, or the longest when it is none of the offered ones. */
    static String span(String given) {
        return SPANS.contains(given) ? given : "1h";
    }

    static Duration duration(String span) {
        return "15m".equals(span) ? Duration.ofMinutes(15) : Duration.ofHours(1);
    }

    /** @param simulation with every key, so that the panel picks its own most affected */
    static WhatIf of(Simulation simulation, String span, boolean enforcing) {
        List<Simulation.KeyImpact> keys = simulation.keys().stream()
                .filter(k -> bite(enforcing, k.deniedNow(), k.deniedProposed()) > 0)
                .sorted(Comparator.comparingLong((Simulation.KeyImpact k) -> -bite(enforcing, k.deniedNow(), k.deniedProposed()))
                        .thenComparingLong(k -> -k.checks()).thenComparing(Simulation.KeyImpact::key))
                .limit(KEYS)
                .toList();
        List<Simulation.Bucket> bitten = simulation.buckets().stream()
                .filter(b -> bite(enforcing, b.deniedNow(), b.deniedProposed()) > 0).toList();
        List<Simulation.Bucket> most = bitten.stream()
                .sorted(Comparator.comparingLong((Simulation.Bucket b) -> -bite(enforcing, b.deniedNow(), b.deniedProposed())))
                .limit(WINDOWS)
                .sorted(Comparator.comparing(Simulation.Bucket::from))
                .toList();
        Simulation.Sampling sampling = simulation.sampling();
        String sampled = sampling.scale() == 1 ? null
                : String.format(Locale.ROOT, "Sampled: the pods recorded 1 in %d of this rule's keys (it had more keys than they"
                + " record each second): the totals are the %d %s replayed times %d, each key's numbers its own.",
                sampling.scale(), sampling.keysSampled(), sampling.keysSampled() == 1 ? "key" : "keys", sampling.scale());
        return new WhatIf(enforcing, span, null, new Numbers(simulation.from(), simulation.to(), simulation.checks(),
                simulation.deniedNow(), simulation.deniedProposed(), simulation.errorBound(), sampled, keys, most, bitten.size()));
    }

    /**
     * How much a key or window is affected: for a shadow rule, what it would have denied (its recorded would-be denies);
     * for a proposal, how far its denies move from the rule's.
     */
    private static long bite(boolean enforcing, long deniedNow, long deniedProposed) {
        return enforcing ? deniedNow : Math.abs(deniedProposed - deniedNow);
    }

    static WhatIf unavailable(String span, boolean enforcing, String why) {
        return new WhatIf(enforcing, span, why, null);
    }

    /** As the headline says it: "over the last hour", "over the last 15 min". */
    public String spanInWords() {
        return "15m".equals(span) ? "15 min" : "hour";
    }
}
