package dev.tollgate.check.chaos;

import dev.tollgate.common.rule.Rule;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Every request one scenario sent, the faults it did, and the check path's invariants over them (issue 11, "Tests
 * that must exist"):
 * <ol>
 *   <li><b>answered in time</b>: every request got an answer within the check deadline plus a stated slack (the
 *       suite's loaded 2-core box: GC, JIT, the client's own queueing), none hung until the client gave up;</li>
 *   <li><b>no server error</b>: only 200, and 503/504 from a fail mode; never a 500 (nor a 4xx: the suite's
 *       requests are all valid);</li>
 *   <li><b>fail modes only where a fault is</b>: 503/504 only for a fail-closed limit whose key is on a faulted
 *       shard, a {@code fallback} answer only for a fail-open one, each only from the fault's start until its
 *       recovery budget ran out; never {@code unknown_rule} (the pods hold every rule);</li>
 *   <li><b>admitted within the bound</b>: per limit and key, the store's bound ({@link ChaosRules#storeBound})
 *       plus, for a fail-open limit a fault hit, the fallback buckets' documented allowance for the fault's
 *       length ({@link ChaosRules#failOpenAllowance});</li>
 *   <li><b>recovered in time</b>: once a fault clears, its limits answer from the store (no fallback, no 503/504,
 *       no hang) within the recovery budget, and the load saw it.</li>
 * </ol>
 * The figures go in the report lines ({@link #report()}) that the closing note quotes.
 */
final class Ledger {

    /**
     * @param deadline      the pods' {@code tollgate.check.deadline}
     * @param slack         what the box may add on top: the client's and the server's scheduling, GC pauses
     * @param clientTimeout when the client stops waiting: an answer later than this is a hang
     * @param recovery      how long after a fault clears its limits may still answer by their fail mode
     * @param stall         the shortest stall of the JVM counted as the box's (see {@link BoxStalls})
     */
    record Limits(Duration deadline, Duration slack, Duration clientTimeout, Duration recovery, Duration stall) {

        Duration answerBudget() {
            return deadline.plus(slack);
        }
    }

    /**
     * One invariant's outcome: how many requests (or limits, or faults) broke it, and the first few, described.
     *
     * @param label     a short name for the report's summary line
     * @param invariant what must hold, in words
     */
    record Finding(String label, String invariant, int count, List<String> examples) {

        boolean holds() {
            return count == 0;
        }

        String describe() {
            return invariant + ": " + count + " violation" + (count == 1 ? "" : "s")
                    + examples.stream().map(e -> "\n      " + e).collect(Collectors.joining());
        }
    }

    static final String BOUND_LABEL = "admitted<=bound";
    static final String IN_TIME_LABEL = "in-time";
    private static final int EXAMPLES = 8;

    private final String scenario;
    private final Limits limits;
    private final long originNanos = System.nanoTime();
    private final Collection<Answer> answers = new ConcurrentLinkedQueue<>();
    private final List<Fault> faults = new CopyOnWriteArrayList<>();

    Ledger(String scenario, Limits limits) {
        this.scenario = scenario;
        this.limits = limits;
    }

    String scenario() {
        return scenario;
    }

    Limits limits() {
        return limits;
    }

    void record(Answer answer) {
        answers.add(answer);
    }

    List<Answer> answers() {
        return List.copyOf(answers);
    }

    /** A fault that starts now and hits the limits of the given keys (see {@link Target#key()}). */
    Fault faultOn(String name, Set<String> keys) {
        Fault fault = new Fault(name, keys, System.nanoTime());
        faults.add(fault);
        return fault;
    }

    /** A fault that starts now and hits every shard. */
    Fault faultEverywhere(String name) {
        Fault fault = new Fault(name, null, System.nanoTime());
        faults.add(fault);
        return fault;
    }

    List<Fault> faults() {
        return List.copyOf(faults);
    }

    /** A stall of the whole JVM the pods run in: every shard's calls in flight may time out (see {@link BoxStalls}). */
    void boxStall(BoxStalls.Stall stall) {
        Fault fault = new Fault("box stall of " + stall.millis() + " ms", Fault.Origin.STALL, null, stall.startNanos());
        fault.clearedAt(stall.endNanos());
        faults.add(fault);
    }

    /**
     * A store call to a shard no injected fault hits that a pod counted as failed, or saw answer after its timeout, at
     * a timeout the box's scheduling alone can outlast (see {@link ShardFailures}): the limits of that shard's keys
     * may answer by their fail mode around it, as around a stall.
     */
    void slowCall(ShardFailures.Failure failure, Set<String> shardKeys) {
        Fault fault = new Fault(String.format("pod %d's call to %s %s after %.1f ms", failure.pod(), failure.shard(),
                        failure.answered() ? "answered" : "failed", failure.elapsedNanos() / 1e6),
                Fault.Origin.SLOW_CALL, shardKeys, failure.startNanos());
        fault.clearedAt(failure.endNanos());
        faults.add(fault);
    }

    private List<Fault> injected() {
        return faults.stream().filter(Fault::injected).toList();
    }

    /**
     * Sent while the box stalled, within a deadline before (in flight when it began), or within the recovery budget
     * after (the shard breakers the stall opened): its fail-mode answer is the box's doing.
     */
    private boolean excusedByTheBox(Answer answer) {
        return faults.stream().anyMatch(fault -> excusedBy(answer, fault));
    }

    private boolean excusedBy(Answer answer, Fault box) {
        return !box.injected() && box.hits(answer.target()) && answer.sentNanos() >= box.startNanos() - limits.deadline().toNanos()
                && answer.sentNanos() <= box.clearedNanos() + limits.recovery().toNanos();
    }

    // ---- the invariants

    /** The five invariants every store fault is held to. */
    List<Finding> storeFaultInvariants() {
        return List.of(answeredInTime(), noServerErrors(), failModesOnlyWhereFaulted(), admittedWithinBound(), recoveredInTime());
    }

    /**
     * Late is late by the time the pods could run: a JVM-wide stall while the request was in flight (see
     * {@link BoxStalls}) is taken off its latency. An answer that never came is never excused.
     */
    Finding answeredInTime() {
        long budget = limits.answerBudget().toNanos();
        return finding(IN_TIME_LABEL, "answered within the deadline " + limits.deadline().toMillis() + " ms + slack " + limits.slack().toMillis()
                        + " ms (less any box stall while in flight)",
                answers().stream().filter(a -> !a.answered() || a.latencyNanos() - stalledDuring(a) > budget));
    }

    private long stalledDuring(Answer answer) {
        long stalled = 0;
        for (Fault fault : faults) {
            if (fault.stall()) {
                stalled += Math.max(0, Math.min(fault.clearedNanos(), answer.answeredNanos()) - Math.max(fault.startNanos(), answer.sentNanos()));
            }
        }
        return stalled;
    }

    Finding noServerErrors() {
        return finding("no-5xx", "no server error (only 200, or 503/504 from a fail mode)",
                answers().stream().filter(a -> a.answered() && a.status() != 200 && a.status() != 503 && a.status() != 504));
    }

    Finding failModesOnlyWhereFaulted() {
        return finding("fail-modes-where-faulted", "503/504 only for fail-closed limits on a faulted shard, fallback only for fail-open ones, "
                + "within the fault and its recovery budget; no unknown rule", answers().stream().filter(a -> {
                    if (!a.answered()) {
                        return false; // counted by answeredInTime
                    }
                    if (a.unknownRule()) {
                        return true;
                    }
                    if (a.failedClosed()) {
                        return !a.target().failsClosed() || !duringFaultOf(a);
                    }
                    if (a.fallback() != null) {
                        return a.target().failsClosed() || !duringFaultOf(a);
                    }
                    return false;
                }));
    }

    Finding admittedWithinBound() {
        List<String> examples = new ArrayList<>();
        int count = 0;
        for (Bound bound : bounds()) {
            if (bound.admitted() > bound.bound()) {
                count++;
                if (examples.size() < EXAMPLES) {
                    examples.add(bound.describe());
                }
            }
        }
        return new Finding(BOUND_LABEL, "admitted per limit and key within B + R·T (+ the fail-open allowance where a fault hit)", count, examples);
    }

    Finding recoveredInTime() {
        List<String> examples = new ArrayList<>();
        int count = 0;
        for (Fault fault : injected()) {
            Recovery recovery = recovery(fault);
            if (!recovery.withinBudget(limits.recovery())) {
                count++;
                examples.add(recovery.describe(limits.recovery()));
            }
        }
        return new Finding("recovery<=" + limits.recovery().toMillis() + "ms", "full recovery (no fallback, no 503/504, no hang) within " + limits.recovery().toMillis()
                + " ms after each fault cleared", count, examples);
    }

    /** For a pod that holds no rules: a fail-closed limit is never let through, whatever else it answers. */
    Finding failClosedNeverAllowed() {
        return finding("closed-never-allowed", "fail-closed limits never allowed", answers().stream().filter(a -> a.target().failsClosed() && a.admitted()));
    }

    /** No answer from a fail mode at all: the fault must be invisible to callers (SCRIPT FLUSH). */
    Finding noFailModeAnswers() {
        return finding("no-fail-mode-answer", "no fail-mode answer at all", answers().stream().filter(Answer::degraded));
    }

    /** The scenario's findings in one assertion message, or null when every one holds. */
    static String violations(String scenario, List<Finding> findings) {
        List<Finding> broken = findings.stream().filter(f -> !f.holds()).toList();
        if (broken.isEmpty()) {
            return null;
        }
        return scenario + " broke " + broken.size() + " invariant" + (broken.size() == 1 ? "" : "s") + ":"
                + broken.stream().map(f -> "\n  - " + f.describe()).collect(Collectors.joining());
    }

    // ---- the figures

    /**
     * The scenario's report: one line per fault (requests sent while it lasted or recovered, the slowest answer,
     * admitted vs bound of the limits it hit, recovery time), then one for the whole run.
     *
     * @param bounded whether admitted vs bound means anything here (not where the pods hold no rules)
     */
    List<String> report(boolean bounded) {
        List<String> lines = new ArrayList<>();
        List<Bound> bounds = bounds();
        for (Fault fault : injected()) {
            long from = fault.startNanos();
            long to = fault.isCleared() ? fault.clearedNanos() + limits.recovery().toNanos() : Long.MAX_VALUE;
            List<Answer> during = answers().stream().filter(a -> a.sentNanos() >= from && a.sentNanos() < to).toList();
            List<Bound> hit = bounds.stream().filter(b -> fault.hits(b.target())).toList();
            Recovery recovery = recovery(fault);
            lines.add(String.format("CHAOS %s | %s (at +%.1f s, cleared after %s): %s%s | recovery %s",
                    scenario, fault.name(), (fault.startNanos() - originNanos) / 1e9,
                    fault.isCleared() ? String.format("%.1f s", (fault.clearedNanos() - fault.startNanos()) / 1e9) : "never",
                    traffic(during), bounded ? " | admitted vs bound on its limits: " + admitted(hit) : "", recovery.figure()));
        }
        List<Fault> stalls = faults.stream().filter(Fault::stall).toList();
        lines.add(String.format("CHAOS %s | box stalls of %d ms or more (GC, starved CPU; their fail-mode answers are excused): %d%s",
                scenario, limits.stall().toMillis(), stalls.size(), stalls.isEmpty() ? ""
                        : ", longest " + stalls.stream().mapToLong(f -> (f.clearedNanos() - f.startNanos()) / 1_000_000).max().orElse(0) + " ms, "
                        + stalls.stream().mapToLong(f -> (f.clearedNanos() - f.startNanos()) / 1_000_000).sum() + " ms in all"));
        List<Fault> slowCalls = faults.stream().filter(f -> !f.injected() && !f.stall()).toList();
        if (!slowCalls.isEmpty()) {
            lines.add(String.format("CHAOS %s | store calls to unfaulted shards that the pods counted as failed or saw answer after the timeout (the box's; their fail-mode answers are excused): %d, the longest: %s",
                    scenario, slowCalls.size(), slowCalls.stream().sorted(Comparator.comparingLong((Fault f) -> f.startNanos() - f.clearedNanos()))
                            .limit(3).map(Fault::name).collect(Collectors.joining("; "))));
        }
        lines.add(String.format("CHAOS %s | whole run (%.1f s): %s%s",
                scenario, (System.nanoTime() - originNanos) / 1e9, traffic(answers()), bounded ? " | admitted vs bound: " + admitted(bounds) : ""));
        return lines;
    }

    private static String traffic(List<Answer> answers) {
        if (answers.isEmpty()) {
            return "0 requests";
        }
        double[] latencies = answers.stream().mapToDouble(Answer::latencyMs).sorted().toArray();
        Map<String, Long> outcomes = new TreeMap<>(answers.stream().collect(Collectors.groupingBy(Ledger::outcome, Collectors.counting())));
        return String.format("%d requests, slowest %.0f ms, p99 %.1f ms, p50 %.1f ms, %s",
                answers.size(), latencies[latencies.length - 1], latencies[(int) Math.floor(0.99 * (latencies.length - 1))],
                latencies[(latencies.length - 1) / 2], outcomes);
    }

    private static String outcome(Answer a) {
        if (!a.answered()) {
            return a.kind() == Answer.Kind.CLIENT_TIMEOUT ? "no-answer" : "failed";
        }
        if (a.status() != 200) {
            return Integer.toString(a.status());
        }
        return a.fallback() != null ? "200-" + a.verdict() + "-fallback" : a.unknownRule() ? "200-unknown" : "200-" + a.verdict();
    }

    private static String admitted(List<Bound> bounds) {
        if (bounds.isEmpty()) {
            return "-";
        }
        Bound worst = bounds.stream().max(Comparator.comparingDouble(b -> b.admitted() / Math.max(1, b.bound()))).orElseThrow();
        long admitted = bounds.stream().mapToLong(Bound::admitted).sum();
        double bound = bounds.stream().mapToDouble(Bound::bound).sum();
        return String.format("%d of %.0f in all (%d limits), closest %s", admitted, bound, bounds.size(), worst.describe());
    }

    // ---- helpers

    /**
     * Whether an answer overlapped a fault that hits its limit: it was sent before the fault's recovery budget ran
     * out and answered after the fault began (a request in flight when a fault begins is the fault's too).
     */
    private boolean duringFaultOf(Answer answer) {
        if (excusedByTheBox(answer)) {
            return true;
        }
        for (Fault fault : injected()) {
            if (overlapped(answer, fault)) {
                return true;
            }
        }
        return false;
    }

    private boolean overlapped(Answer answer, Fault fault) {
        long end = fault.isCleared() ? fault.clearedNanos() + limits.recovery().toNanos() : Long.MAX_VALUE;
        return fault.hits(answer.target()) && answer.sentNanos() <= end && answer.answeredNanos() >= fault.startNanos();
    }

    /** Admitted vs bound of one limit and key, over the whole run. */
    record Bound(Target target, long admitted, long requests, double storeBound, double allowance) {

        double bound() {
            return Math.floor(storeBound + allowance + 1e-9);
        }

        String describe() {
            return String.format("%s %d admitted of %d sent, bound %.0f (store %.1f + fail-open %.1f)",
                    target, admitted, requests, bound(), storeBound, allowance);
        }
    }

    List<Bound> bounds() {
        Map<Target, List<Answer>> byTarget = new LinkedHashMap<>();
        for (Answer answer : answers()) {
            byTarget.computeIfAbsent(answer.target(), t -> new ArrayList<>()).add(answer);
        }
        List<Bound> bounds = new ArrayList<>();
        byTarget.forEach((target, list) -> {
            Rule rule = target.rule();
            long firstWall = list.stream().mapToLong(Answer::sentWallMs).min().orElseThrow();
            long lastWall = list.stream().mapToLong(Answer::answeredWallMs).max().orElseThrow();
            long lastNanos = list.stream().mapToLong(Answer::answeredNanos).max().orElseThrow();
            double allowance = 0;
            if (!target.failsClosed()) {
                for (Fault fault : faults) {
                    // a stall of the box counts only where it made the pods fall back: most stalls open no breaker
                    boolean counts = fault.injected() || list.stream().anyMatch(a -> a.fallback() != null && excusedBy(a, fault));
                    if (counts && fault.hits(target)) {
                        long end = fault.isCleared() ? fault.clearedNanos() + limits.recovery().toNanos() : lastNanos;
                        allowance += ChaosRules.failOpenAllowance(rule, Math.max(0, end - fault.startNanos()) / 1e9);
                    }
                }
            }
            long admitted = list.stream().filter(Answer::admitted).count();
            bounds.add(new Bound(target, admitted, list.size(), ChaosRules.storeBound(rule, firstWall, lastWall), allowance));
        });
        return bounds;
    }

    /** How one fault's limits came back: the last fail-mode answer (or hang) sent after it cleared. */
    record Recovery(Fault fault, long lastDegradedAfterNanos, String lastDegraded, long observedAfterNanos, int answersAfter) {

        boolean withinBudget(Duration budget) {
            return fault.isCleared() && lastDegradedAfterNanos <= budget.toNanos() && observedAfterNanos > budget.toNanos();
        }

        String figure() {
            if (!fault.isCleared()) {
                return "never (the fault did not clear)";
            }
            if (lastDegradedAfterNanos < 0) {
                return "0 ms (no fail-mode answer after it cleared)";
            }
            return String.format("%.0f ms", lastDegradedAfterNanos / 1e6) + (stillDegradedAtEnd() ? " (still degraded when the load stopped: not recovered)" : "");
        }

        /** The last answers seen were still fail-mode ones: what looks like a recovery time is only the load's end. */
        private boolean stillDegradedAtEnd() {
            return lastDegradedAfterNanos >= 0 && observedAfterNanos - lastDegradedAfterNanos < 250_000_000L;
        }

        String describe(Duration budget) {
            if (!fault.isCleared()) {
                return fault + ": never cleared";
            }
            if (observedAfterNanos <= budget.toNanos()) {
                return String.format("%s: the load stopped %.0f ms after it cleared (%d answers), so recovery was not observed",
                        fault, observedAfterNanos / 1e6, answersAfter);
            }
            return String.format("%s: still answering by fail mode %.0f ms after it cleared%s; last: %s",
                    fault, lastDegradedAfterNanos / 1e6, stillDegradedAtEnd() ? " (and when the load stopped)" : "", lastDegraded);
        }
    }

    Recovery recovery(Fault fault) {
        if (!fault.isCleared()) {
            return new Recovery(fault, Long.MAX_VALUE, null, 0, 0);
        }
        long cleared = fault.clearedNanos();
        // up to the next fault that hits the same shards: what follows is that fault's to explain
        long until = injected().stream()
                .filter(other -> other.startNanos() > fault.startNanos() && (other.everywhere() || fault.everywhere() || overlaps(fault, other)))
                .mapToLong(Fault::startNanos).min().orElse(Long.MAX_VALUE);
        Predicate<Answer> concerned = a -> fault.hits(a.target()) && a.sentNanos() >= cleared && a.sentNanos() < until;
        List<Answer> after = answers().stream().filter(concerned).toList();
        long lastDegraded = -1;
        Answer lastDegradedAnswer = null;
        long observed = 0;
        for (Answer answer : after) {
            long since = answer.sentNanos() - cleared;
            observed = Math.max(observed, since);
            // a hang is never the box's doing, nor a later fault's: a stall ends, an answer that never comes does not
            boolean explained = answer.answered() && (excusedByTheBox(answer) || injected().stream()
                    .anyMatch(later -> later != fault && later.startNanos() > fault.startNanos() && overlapped(answer, later)));
            if (answer.degraded() && since > lastDegraded && !explained) {
                lastDegraded = since;
                lastDegradedAnswer = answer;
            }
        }
        return new Recovery(fault, lastDegraded, lastDegradedAnswer == null ? null : lastDegradedAnswer.describe(originNanos), observed, after.size());
    }

    private boolean overlaps(Fault a, Fault b) {
        return answers().stream().map(Answer::target).distinct().anyMatch(t -> a.hits(t) && b.hits(t));
    }

    private Finding finding(String label, String invariant, java.util.stream.Stream<Answer> violating) {
        List<Answer> list = violating.sorted(Comparator.comparingLong(Answer::sentNanos)).toList();
        if (!list.isEmpty()) {
            // which limits broke it says more than the first few requests do
            invariant += "; by limit: " + new TreeMap<>(list.stream().collect(Collectors.groupingBy(a -> a.target().ruleId(), Collectors.counting())));
        }
        return new Finding(label, invariant, list.size(), list.stream().limit(EXAMPLES).map(a -> a.describe(originNanos)).toList());
    }

    long originNanos() {
        return originNanos;
    }
}
