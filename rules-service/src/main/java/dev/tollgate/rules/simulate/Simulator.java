package dev.tollgate.rules.simulate;

import dev.tollgate.common.rule.Rule;
import dev.tollgate.rules.problem.BadRequestException;
import dev.tollgate.rules.usage.CounterReader;
import dev.tollgate.rules.usage.UsageProperties;
import dev.tollgate.store.key.UsageKeys;
import dev.tollgate.store.read.CounterReads;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Replays a rule's recorded checks ({@link UsageKeys#checks}) over a recent span through a proposed rule. It reads
 * the span's windows of the one rule (a hash per window, all sent at once), keeps the keys of the span's sampling
 * level, and replays each key's windows with {@link Replay}. Only windows that have closed are read, so the answer
 * does not change while the current window fills.
 */
@Component
public class Simulator {

    /** The longest span: what the pods keep ({@link UsageKeys#CHECKS_RETENTION}, less the window being written). */
    public static final Duration MAX_SPAN = Duration.ofHours(1);
    public static final Duration DEFAULT_SPAN = Duration.ofHours(1);
    /** A window is read once the pods' flushes (every second) have written it. */
    private static final Duration LAG = Duration.ofMillis(1500);
    static final String ASSUMPTION = "each 10 s window's checks arrive evenly spread over it, each of cost 1;"
            + " the replay starts from a full bucket (an empty log or window); error_bound is the most any other order"
            + " of the same checks inside their windows can change denied_proposed";

    private final CounterReader store;
    private final double share;

    Simulator(CounterReader store, UsageProperties usage) {
        this.store = store;
        this.share = usage.defaultShare();
    }

    /** A span as given ({@code 15m}, {@code 90s}, {@code 1h} or ISO-8601 {@code PT15M}); 400 unless 10 s to 1 h. */
    public static Duration span(String given) {
        if (given == null || given.isBlank()) {
            return DEFAULT_SPAN;
        }
        Duration span;
        try {
            span = given.startsWith("P") || given.startsWith("p") ? Duration.parse(given) : Duration.parse("PT" + given);
        } catch (RuntimeException e) {
            throw new BadRequestException("span: '" + given + "' is not a duration (15m, 90s, 1h or PT15M).");
        }
        if (span.compareTo(UsageKeys.WINDOW) < 0 || span.compareTo(MAX_SPAN) > 0) {
            throw new BadRequestException("span: must be from 10s to 1h (what the pods keep), was " + given + ".");
        }
        return span;
    }

    /**
     * @param recorded the rule whose recorded checks are replayed (its id names them)
     * @param proposed the version to replay them through
     * @param top      how many keys to list
     */
    public Simulation simulate(String recorded, Rule proposed, Duration span, int top) {
        CounterReads reads = store.reads();
        long now = store.await(reads.clockMs());
        int windows = (int) Math.max(1, span.toSeconds() / UsageKeys.WINDOW_SECONDS);
        long last = UsageKeys.lastClosedWindow(now, LAG);
        long first = last - (long) (windows - 1) * UsageKeys.WINDOW_SECONDS;
        List<CompletableFuture<Map<String, String>>> calls = new ArrayList<>(windows);
        for (int w = 0; w < windows; w++) {
            calls.add(reads.checks(recorded, first + (long) w * UsageKeys.WINDOW_SECONDS));
        }
        List<Map<String, String>> hashes = new ArrayList<>(windows);
        for (CompletableFuture<Map<String, String>> call : calls) {
            hashes.add(store.await(call));
        }
        int level = 0;
        for (Map<String, String> hash : hashes) {
            for (String field : hash.keySet()) {
                if (field.startsWith("l:")) {
                    level = (int) Math.min(UsageKeys.MAX_SAMPLING_LEVEL, Math.max(level, parse(field.substring(2))));
                }
            }
        }
        Map<String, long[][]> byKey = new HashMap<>();
        for (int w = 0; w < windows; w++) {
            for (Map.Entry<String, String> field : hashes.get(w).entrySet()) {
                String name = field.getKey();
                boolean checked = name.startsWith("c:");
                if ((checked || name.startsWith("d:")) && UsageKeys.sampled(name.substring(2), level)) {
                    long[][] series = byKey.computeIfAbsent(name.substring(2), key -> new long[2][windows]);
                    series[checked ? 0 : 1][w] += Math.max(0, parse(field.getValue()));
                }
            }
        }
        long scale = 1L << level;
        Replay replay = new Replay(proposed, share);
        long[] bucketChecks = new long[windows];
        long[] bucketNow = new long[windows];
        long[] bucketProposed = new long[windows];
        long checks = 0;
        long deniedNow = 0;
        long deniedProposed = 0;
        long errorBound = 0;
        List<Simulation.KeyImpact> keys = new ArrayList<>(byKey.size());
        for (Map.Entry<String, long[][]> key : byKey.entrySet()) {
            long[] keyChecks = key.getValue()[0];
            long[] keyDenied = key.getValue()[1];
            Replay.Result result = replay.run(first, keyChecks);
            long keyCheckTotal = 0;
            long keyDeniedTotal = 0;
            for (int w = 0; w < windows; w++) {
                bucketChecks[w] += keyChecks[w];
                bucketNow[w] += keyDenied[w];
                bucketProposed[w] += result.denied()[w];
                keyCheckTotal += keyChecks[w];
                keyDeniedTotal += keyDenied[w];
            }
            checks += keyCheckTotal;
            deniedNow += keyDeniedTotal;
            deniedProposed += result.total();
            errorBound += result.errorBound();
            keys.add(new Simulation.KeyImpact(key.getKey(), keyCheckTotal, keyDeniedTotal, result.total(), result.errorBound()));
        }
        keys.sort(Comparator.comparingLong((Simulation.KeyImpact k) -> -Math.abs(k.deniedProposed() - k.deniedNow()))
                .thenComparing(k -> -k.checks()).thenComparing(Simulation.KeyImpact::key));
        List<Simulation.Bucket> buckets = new ArrayList<>();
        for (int w = 0; w < windows; w++) {
            if (bucketChecks[w] > 0) {
                buckets.add(new Simulation.Bucket(Instant.ofEpochSecond(first + (long) w * UsageKeys.WINDOW_SECONDS),
                        bucketChecks[w] * scale, bucketNow[w] * scale, bucketProposed[w] * scale));
            }
        }
        return new Simulation(recorded, Instant.ofEpochSecond(first), Instant.ofEpochSecond(last + UsageKeys.WINDOW_SECONDS),
                (long) windows * UsageKeys.WINDOW_SECONDS, windows, checks * scale, deniedNow * scale, deniedProposed * scale,
                errorBound * scale, ASSUMPTION, new Simulation.Sampling(level, scale, byKey.size()),
                List.copyOf(keys.subList(0, Math.min(top, keys.size()))), buckets);
    }

    private static long parse(String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
