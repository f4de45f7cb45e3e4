package dev.tollgate.rules.usage;

import dev.tollgate.common.rule.Rule;
import dev.tollgate.rules.rule.RuleCanary;
import dev.tollgate.store.key.UsageKeys;
import dev.tollgate.store.read.CounterReads;
import org.springframework.stereotype.Component;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The pods' usage windows as a short series, for the console's live chart, a rule's shadow-deny
 * rate and a canary's deny rates: what the region's pods admitted for a key, what its shadow rules would
 * have denied, and what each rule version denied, per 10 s window. Redis keeps windows for {@link UsageKeys#RETENTION} only, so the series is the open
 * window and the few closed ones still held; a reader that wants a longer past keeps the samples itself.
 */
@Component
public class RecentUsage {

    /** The windows Redis still holds: the open one and those within the retention before it. */
    public static final int WINDOWS_HELD = (int) (UsageKeys.RETENTION.toSeconds() / UsageKeys.WINDOW_SECONDS);

    private final CounterReader counters;

    RecentUsage(CounterReader counters) {
        this.counters = counters;
    }

    /**
     * @param readAtMs  the counter store's clock when read
     * @param starts    the windows' starts (epoch seconds), oldest first; the last is still open
     * @param costs     per rule id, the cost counted in each window, in the order of {@code starts}
     */
    public record Series(long readAtMs, List<Long> starts, Map<String, List<Long>> costs) {

        /** Seconds of the last window that had passed when read: the open window's rate divides by these. */
        public double openSeconds() {
            return Math.max(1, Math.min(UsageKeys.WINDOW_SECONDS, (readAtMs / 1000.0) - starts.get(starts.size() - 1)));
        }
    }

    /** What the region's pods admitted for {@code key} under each rule. */
    public Series admitted(String key, List<String> ruleIds) {
        CounterReads store = counters.reads();
        return read(store, ruleIds, (ruleId, start) -> store.admitted(ruleId, key, start));
    }

    /** What the region's shadow rules would have denied, per rule. */
    public Series shadowDenied(List<String> ruleIds) {
        CounterReads store = counters.reads();
        return read(store, ruleIds, store::shadowDenied);
    }

    /** The rule's canary and its promoted version, side by side: what each denied, by the pods that enforce it. */
    public CanaryRates canaryRates(Rule promoted, RuleCanary canary) {
        Series series = denied(promoted.id(), List.of(promoted.version(), canary.version()));
        return CanaryRates.of(promoted.id(), series, promoted, canary.rule());
    }

    /**
     * What the region's pods denied by each of a rule's {@code versions}, and (a version in shadow) would have denied:
     * series named {@link #denials(long, boolean)}.
     */
    Series denied(String ruleId, List<Long> versions) {
        CounterReads store = counters.reads();
        Map<String, Function<Long, CompletableFuture<Long>>> readers = new LinkedHashMap<>();
        for (long version : versions) {
            for (boolean shadow : new boolean[] {false, true}) {
                readers.put(denials(version, shadow), start -> store.denied(ruleId, version, shadow, start));
            }
        }
        return read(store, List.copyOf(readers.keySet()), (name, start) -> readers.get(name).apply(start));
    }

    /** The name of the series of a version's denies ({@code 4:deny}) or shadow denies ({@code 4:shadow_deny}) in {@link #denied}. */
    static String denials(long version, boolean shadow) {
        return version + (shadow ? ":shadow_deny" : ":deny");
    }

    private Series read(CounterReads store, List<String> ruleIds, BiFunction<String, Long, CompletableFuture<Long>> reader) {
        long now = counters.await(store.clockMs());
        long open = UsageKeys.windowStart(now);
        List<Long> starts = new ArrayList<>();
        for (int i = WINDOWS_HELD; i >= 0; i--) {
            starts.add(open - (long) i * UsageKeys.WINDOW_SECONDS);
        }
        // every read sent before the first is awaited
        Map<String, List<CompletableFuture<Long>>> pending = new LinkedHashMap<>();
        for (String ruleId : ruleIds) {
            List<CompletableFuture<Long>> replies = new ArrayList<>(starts.size());
            for (long start : starts) {
                replies.add(reader.apply(ruleId, start));
            }
            pending.put(ruleId, replies);
        }
        Map<String, List<Long>> costs = new LinkedHashMap<>();
        pending.forEach((ruleId, replies) -> {
            List<Long> values = new ArrayList<>(replies.size());
            for (CompletableFuture<Long> reply : replies) {
                values.add(counters.await(reply));
            }
            costs.put(ruleId, values);
        });
        return new Series(now, List.copyOf(starts), costs);
    }
}
