package dev.tollgate.bench.soak;

import dev.tollgate.bench.soak.SoakTraffic.Kind;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Every check of the soak, counted by when it was due (its intended send time, in 200 ms slots), what came back
 * ({@link Outcome}), whether it came in time, the shard of its key and its kind; so that any window (a fault, the
 * steady state between them) can be summed afterwards. A few examples of each wrong answer and each reason a check
 * went unanswered are kept, for the report.
 */
final class Ledger {

    static final double SLOT_SECONDS = 0.2;
    /** The slot of checks without a key (malformed). */
    static final int NO_SHARD = 3;
    private static final int SHARDS = 4;
    private static final int OUTCOMES = Outcome.values().length;
    private static final int KINDS = Kind.values().length;
    /** In time; late from when it was due but not from when it was sent (the load generator was behind); late from its send. */
    private static final int LATENESS = 3;
    private static final int PER_SLOT = OUTCOMES * LATENESS * SHARDS * KINDS;
    private static final int MAX_EXAMPLES = 40;

    private final int slots;
    private final AtomicLongArray counts;
    private final AtomicLongArray rerouted;
    private final Map<String, LongAdder> wrong = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> unanswered = new ConcurrentHashMap<>();

    Ledger(double seconds) {
        this.slots = (int) Math.ceil(seconds / SLOT_SECONDS) + 1;
        this.counts = new AtomicLongArray(slots * PER_SLOT);
        this.rerouted = new AtomicLongArray(slots);
    }

    /**
     * @param dueSeconds when the check was due, from the soak's start
     * @param shard      its key's shard, or -1
     * @param late       answered, but after the in-time bound from when it was due
     * @param lateFromSend answered after the in-time bound from when it was sent: the pod (or the machine) was slow,
     *                     not only the load generator behind its schedule
     */
    void record(double dueSeconds, Kind kind, int shard, Outcome outcome, boolean late, boolean lateFromSend) {
        int lateness = lateFromSend ? 2 : late ? 1 : 0;
        counts.incrementAndGet(index(slot(dueSeconds), outcome, lateness, shard < 0 ? NO_SHARD : shard, kind));
    }

    void rerouted(double dueSeconds) {
        rerouted.incrementAndGet(slot(dueSeconds));
    }

    void wrong(String example) {
        note(wrong, example);
    }

    void unanswered(String reason) {
        note(unanswered, reason);
    }

    private static void note(Map<String, LongAdder> notes, String text) {
        LongAdder count = notes.get(text);
        if (count == null && notes.size() < MAX_EXAMPLES) {
            count = notes.computeIfAbsent(text, t -> new LongAdder());
        }
        if (count != null) {
            count.increment();
        }
    }

    Map<String, Long> wrongExamples() {
        return snapshot(wrong);
    }

    Map<String, Long> unansweredReasons() {
        return snapshot(unanswered);
    }

    private static Map<String, Long> snapshot(Map<String, LongAdder> notes) {
        Map<String, Long> out = new LinkedHashMap<>();
        notes.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue().sum(), a.getValue().sum()))
                .forEach(e -> out.put(e.getKey(), e.getValue().sum()));
        return out;
    }

    /** What one window of the soak counted. */
    record Window(long sent, Map<Outcome, Long> byOutcome, long late, long lateFromSend, long rerouted, long fallbackOnShard, long fallbackElsewhere,
                  long apiChecks, long loginChecks, long malformed) {

        long count(Outcome outcome) {
            return byOutcome.getOrDefault(outcome, 0L);
        }

        long unanswered() {
            return count(Outcome.BROKEN) + count(Outcome.TIMED_OUT) + count(Outcome.NO_POD);
        }

        long answeredInTime() {
            return sent - unanswered() - late;
        }
    }

    /**
     * Sums the checks due in [from, to) seconds.
     *
     * @param faultShard the shard a fault hit, whose keys' fallback answers are expected; -1: none
     */
    Window sum(double from, double to, int faultShard) {
        return sum(seconds -> seconds >= from - 1e-9 && seconds < to - 1e-9, faultShard);
    }

    /** Sums the checks due in every slot whose start passes {@code inWindow} (seconds from the soak's start). */
    Window sum(java.util.function.DoublePredicate inWindow, int faultShard) {
        Map<Outcome, Long> byOutcome = new EnumMap<>(Outcome.class);
        long sent = 0;
        long late = 0;
        long lateFromSend = 0;
        long onShard = 0;
        long elsewhere = 0;
        long api = 0;
        long login = 0;
        long malformed = 0;
        long reroutes = 0;
        for (int s = 0; s < slots; s++) {
            if (!inWindow.test(s * SLOT_SECONDS)) {
                continue;
            }
            reroutes += rerouted.get(s);
            for (Outcome outcome : Outcome.values()) {
                for (int lateness = 0; lateness < LATENESS; lateness++) {
                    for (int shard = 0; shard < SHARDS; shard++) {
                        for (Kind kind : Kind.values()) {
                            long n = counts.get(index(s, outcome, lateness, shard, kind));
                            if (n == 0) {
                                continue;
                            }
                            sent += n;
                            byOutcome.merge(outcome, n, Long::sum);
                            late += lateness > 0 ? n : 0;
                            lateFromSend += lateness == 2 ? n : 0;
                            if (outcome == Outcome.FALLBACK) {
                                if (shard == faultShard) {
                                    onShard += n;
                                } else {
                                    elsewhere += n;
                                }
                            }
                            if (kind.malformed()) {
                                malformed += n;
                            } else if (kind.failsClosed()) {
                                login += n;
                            } else {
                                api += n;
                            }
                        }
                    }
                }
            }
        }
        return new Window(sent, byOutcome, late, lateFromSend, reroutes, onShard, elsewhere, api, login, malformed);
    }

    private int slot(double seconds) {
        return (int) Math.max(0, Math.min(slots - 1, Math.floor(seconds / SLOT_SECONDS)));
    }

    private static int index(int slot, Outcome outcome, int lateness, int shard, Kind kind) {
        return (((slot * OUTCOMES + outcome.ordinal()) * LATENESS + lateness) * SHARDS + shard) * KINDS + kind.ordinal();
    }
}
