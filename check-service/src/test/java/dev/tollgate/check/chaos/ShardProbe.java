package dev.tollgate.check.chaos;

import dev.tollgate.check.config.CheckProperties;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.testsupport.redis.Node;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * Checks of one shard's limits on every pod, one at a time per pod, each on a key of its own, with the pod's meters
 * read before and after each: what answered a check (the store, a store timeout, the shard's open breaker, the
 * check's deadline) is what the pod counted while it was in flight, not a guess from its latency.
 *
 * <p>The shard's traffic must be the probe's alone (the scenario's load leaves its keys out): then the breaker's
 * counts on that shard are the probe's, and one check in flight per pod means one store call in flight, so that the
 * calls a frozen shard costs before its breaker opens are counted exactly, whatever the box's speed. A key is never
 * checked twice, so no deny cache, local bucket or lease answers in the store's place, and every fail-open check
 * finds its fallback bucket full.
 */
final class ShardProbe implements AutoCloseable {

    /** Between an answer and the pod's next check, as a gateway worker's next request would come. */
    private static final Duration PAUSE = Duration.ofMillis(10);
    /** Deadline answers a pod may give with no sign of the box holding its timer back (see {@link #noDeadlineAnswers}). */
    private static final int UNEXPLAINED_DEADLINE_ANSWERS = 1;
    /** More than two pods can check in the scenario's time at {@link #PAUSE}. */
    private static final int KEYS = 4_000;

    /** What answered a check, by which of the pod's meters moved while it was in flight. */
    enum By {
        /** the deadline passed before the store call ended ({@code tollgate.check.deadline.exceeded}) */
        DEADLINE,
        /** {@code resilience4j.circuitbreaker.not.permitted.calls}: the shard's breaker refused the call */
        BREAKER,
        /** {@code resilience4j.circuitbreaker.calls{kind=successful}} */
        STORE,
        /** {@code resilience4j.circuitbreaker.calls{kind=failed}}: the call failed (timed out) within the deadline */
        TIMEOUT,
        /** none of them: the pod answered alone, which a fresh key never gets */
        UNKNOWN
    }

    /**
     * One check and what the pod's meters said around it.
     *
     * @param failedCallMs how long the shard's failed calls took while it was in flight, as the pod timed them for
     *                     the breaker: the store call of a check answered by its timeout
     */
    record Check(Answer answer, By by, double failedCallMs, Reading after) {
    }

    /** A pod's meters of the probed shard, and its pod-wide ones, at one moment. */
    record Reading(long failed, double failedMs, long successful, double refused, boolean open, double deadlineExceeded, long storeTimeouts) {
    }

    private final Scenario scenario;
    private final String shardName;
    private final List<Target> targets;
    private final AtomicInteger nextTarget = new AtomicInteger();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(1)).build();
    private final List<PodProbe> probes = new ArrayList<>();
    private final CheckProperties.Breaker breaker;
    private final double deadlineMs;
    private volatile long thawingNanos = -1;
    private volatile boolean closed;

    /**
     * @param primary    the shard to probe
     * @param shardIndex its place in slot order (see {@link Targets#keysOnShard})
     */
    ShardProbe(Scenario scenario, Node primary, int shardIndex) {
        this.scenario = scenario;
        this.shardName = primary.hostAndPort();
        List<Rule> rules = scenario.rules().all();
        List<String> keys = Targets.keysOnShard(scenario.name() + "-probe", shardIndex, KEYS);
        if (scenario.cluster().primaryForKey("{" + keys.get(0) + "}").port() != primary.port()) {
            throw new IllegalStateException("probe key " + keys.get(0) + " is not on " + primary);
        }
        List<Target> all = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            // each rule in turn: every algorithm, failing open and failing closed
            all.add(new Target(rules.get(i % rules.size()), keys.get(i), 1));
        }
        this.targets = List.copyOf(all);
        this.breaker = scenario.pods().get(0).context().getBean(CheckProperties.class).breaker();
        this.deadlineMs = scenario.ledger().limits().deadline().toNanos() / 1e6;
        for (Pods.Pod pod : scenario.pods().all()) {
            probes.add(new PodProbe(pod, new PodMeters(pod.context().getBean(MeterRegistry.class), shardName)));
        }
    }

    /** The probe's keys, every one on the probed shard: the keys a fault of that shard hits. */
    Set<String> keys() {
        return targets.stream().map(Target::key).collect(Collectors.toSet());
    }

    /** Starts checking on every pod: call it once the shard's fault is in place. */
    void start() {
        probes.forEach(PodProbe::start);
    }

    /**
     * Call it before the fault is undone: a check answered before now saw the fault from start to end. The pods go
     * on checking for the recovery budget, and a second more if the shard's store has not answered them by then.
     */
    void thawing() {
        thawingNanos = System.nanoTime();
    }

    /** Waits for every pod's probe to end (see {@link #thawing()}). */
    void awaitEnd() {
        long wait = scenario.ledger().limits().recovery().plusSeconds(1).plus(scenario.ledger().limits().clientTimeout()).toMillis();
        for (PodProbe probe : probes) {
            try {
                probe.thread.join(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the probe", e);
            }
            if (probe.thread.isAlive()) {
                throw new IllegalStateException("pod " + probe.pod.index() + "'s probe still checking " + wait + " ms after the thaw");
            }
        }
    }

    /** Stops every pod's probe, wherever it is: for a scenario that ends early. */
    @Override
    public void close() {
        closed = true;
        probes.forEach(probe -> probe.thread.interrupt());
    }

    // ---- the findings

    /**
     * What the design promises of a frozen shard, per pod, from the pods' own counts:
     * <ol>
     *   <li>at most {@code failures-to-open} (3) store calls time out before the shard's breaker opens;</li>
     *   <li>no check is answered by the deadline, but where the box held the pod's timer back (and one a pod);</li>
     *   <li>every check sent while the shard was frozen is answered by its store timeout or its open breaker, with
     *       docs/failure-modes.md's verdict: a fail-open rule allowed from fallback, a fail-closed one 504 store_timeout or 503
     *       store_unavailable;</li>
     *   <li>once open, one probe per {@code open-for} (1 s) is all that reaches the shard;</li>
     *   <li>after the thaw, the store answers again within the recovery budget.</li>
     * </ol>
     */
    List<Ledger.Finding> findings() {
        return List.of(timeoutsBeforeOpen(), noDeadlineAnswers(), verdictsAsPromised(), probesOnlyOncePerOpenFor(), storeAnswersAgain());
    }

    private Ledger.Finding timeoutsBeforeOpen() {
        List<String> wrong = new ArrayList<>();
        for (PodProbe probe : probes) {
            List<Check> before = probe.beforeOpen();
            if (before == null) {
                wrong.add("pod " + probe.pod.index() + ": its breaker of " + shardName + " never refused a check while the shard was frozen");
            } else if (before.size() > breaker.failuresToOpen()) {
                wrong.add("pod " + probe.pod.index() + ": " + before.size() + " store calls before its breaker opened: " + describe(before));
            }
        }
        return finding("timeouts-before-open<=" + breaker.failuresToOpen(), "a frozen shard costs each pod at most " + breaker.failuresToOpen()
                + " store calls before its breaker opens (probe checks sent to the store before the first the breaker refused)", wrong);
    }

    /**
     * A deadline answer is the box's when the pods' command timer could not run in time: the JVM stalled for
     * {@code deadline - timeout} while the check was in flight, or a call of the same pod to a healthy shard timed out
     * (or was answered) only after the deadline meanwhile (the same timer, as late for a shard that was not frozen).
     * Lettuce's own 100 ms tick leaves calls to healthy shards to their replies, which nearly always come first: it
     * is not excused. Beyond those, {@link #UNEXPLAINED_DEADLINE_ANSWERS} per pod: the timer's thread and Lettuce's completion
     * thread are two of about a hundred on two shared cores, and now and then one of them waits for a core while
     * neither the stall watch nor a healthy shard's call shows it (never more than one a pod, and a few in all, of
     * 60-odd frozen-shard calls over 6 runs at load averages of 5 to 14). Lettuce's 100 ms tick answers about four in
     * five of them by the deadline (9 of 10 in a run with its timer): a pod's 3 timeouts and 2 probes show 4.
     */
    private Ledger.Finding noDeadlineAnswers() {
        List<Fault> stalls = scenario.ledger().faults().stream().filter(Fault::stall).toList();
        long deadline = scenario.ledger().limits().deadline().toNanos();
        List<ShardFailures.Failure> lateElsewhere = scenario.shardFailures().stream()
                .filter(f -> !f.shard().equals(shardName) && f.elapsedNanos() >= deadline).toList();
        List<String> wrong = new ArrayList<>();
        for (PodProbe probe : probes) {
            List<String> unexplained = new ArrayList<>();
            for (Check check : probe.checks()) {
                Answer a = check.answer();
                boolean stalled = stalls.stream().anyMatch(s -> s.startNanos() < a.answeredNanos() && s.clearedNanos() > a.sentNanos());
                boolean timerLate = lateElsewhere.stream()
                        .anyMatch(f -> f.pod() == a.pod() && f.startNanos() < a.answeredNanos() && f.endNanos() > a.sentNanos());
                if (check.by() == By.DEADLINE && !stalled && !timerLate) {
                    unexplained.add(a.describe(scenario.ledger().originNanos()) + String.format(" (its store call %.1f ms)", check.failedCallMs()));
                }
            }
            if (unexplained.size() > UNEXPLAINED_DEADLINE_ANSWERS) {
                wrong.addAll(unexplained);
            }
        }
        return finding("deadline-answers<=" + UNEXPLAINED_DEADLINE_ANSWERS, "no probe check answered by the deadline unless the box held the pod's timer back "
                + "meanwhile (a stall of " + scenario.ledger().limits().stall().toMillis() + " ms or more, or the pod's call to a healthy shard timing out "
                + "after the deadline), but " + UNEXPLAINED_DEADLINE_ANSWERS + " per pod", wrong);
    }

    private Ledger.Finding verdictsAsPromised() {
        List<String> wrong = new ArrayList<>();
        for (PodProbe probe : probes) {
            for (Check check : probe.duringFreeze()) {
                Answer a = check.answer();
                String expected = expected(check);
                String got = a.answered() ? a.status() + (a.code() != null ? " " + a.code() : "") + (a.verdict() != null ? " " + a.verdict() : "")
                        + (a.fallback() != null ? " " + a.fallback() : "") : a.kind().toString();
                if (!got.equals(expected)) {
                    wrong.add(a.describe(scenario.ledger().originNanos()) + " (by " + check.by() + "), expected " + expected);
                }
            }
        }
        return finding("frozen-verdicts", "every check of the frozen shard answered by its store timeout or its open breaker, "
                + "fail-open 200 allow fail_open, fail-closed 504 store_timeout or 503 store_unavailable", wrong);
    }

    private static String expected(Check check) {
        return switch (check.by()) {
            case TIMEOUT, DEADLINE -> check.answer().target().failsClosed() ? "504 store_timeout" : "200 allow fail_open";
            case BREAKER -> check.answer().target().failsClosed() ? "503 store_unavailable" : "200 allow fail_open";
            case STORE, UNKNOWN -> "a store timeout or the open breaker, not " + check.by();
        };
    }

    private Ledger.Finding probesOnlyOncePerOpenFor() {
        List<String> wrong = new ArrayList<>();
        for (PodProbe probe : probes) {
            List<Check> after = probe.afterOpen();
            if (after.isEmpty()) {
                continue; // the breaker never opened: counted by timeoutsBeforeOpen
            }
            long reached = after.stream().filter(c -> c.by() != By.BREAKER).count();
            long openNanos = thawingNanos - after.get(0).answer().sentNanos();
            long allowed = (openNanos + breaker.openFor().toNanos() - 1) / breaker.openFor().toNanos();
            if (reached > allowed) {
                wrong.add(String.format("pod %d: %d store calls in the %.2f s its breaker was open, at most %d probes", probe.pod.index(), reached, openNanos / 1e9, allowed));
            }
        }
        return finding("probes<=1/" + breaker.openFor().toMillis() + "ms", "once the breaker is open, only its probes reach the frozen shard", wrong);
    }

    private Ledger.Finding storeAnswersAgain() {
        long budget = scenario.ledger().limits().recovery().toNanos();
        List<String> wrong = new ArrayList<>();
        for (PodProbe probe : probes) {
            Check first = probe.firstFromStoreAfterThaw();
            if (first == null || first.answer().sentNanos() - thawingNanos > budget) {
                wrong.add("pod " + probe.pod.index() + ": " + (first == null ? "no check answered by the store after the thaw"
                        : String.format("the store answered again %.0f ms after the thaw", (first.answer().sentNanos() - thawingNanos) / 1e6)));
            }
        }
        return finding("store-again<=" + scenario.ledger().limits().recovery().toMillis() + "ms",
                "the thawed shard's store answers each pod again within the recovery budget", wrong);
    }

    private static Ledger.Finding finding(String label, String invariant, List<String> wrong) {
        return new Ledger.Finding(label, invariant, wrong.size(), wrong.stream().limit(8).toList());
    }

    // ---- the figures

    /** One line per pod: what the frozen shard cost it, and how fast its fallback answered. */
    List<String> report() {
        List<String> lines = new ArrayList<>();
        for (PodProbe probe : probes) {
            List<Check> frozen = probe.duringFreeze();
            List<Check> before = probe.beforeOpen();
            List<Check> after = probe.afterOpen();
            double[] refused = after.stream().filter(c -> c.by() == By.BREAKER).mapToDouble(c -> c.answer().latencyMs()).sorted().toArray();
            Reading start = probe.start;
            Reading open = before == null ? null : before.isEmpty() ? start : before.get(before.size() - 1).after();
            Reading end = frozen.isEmpty() ? start : frozen.get(frozen.size() - 1).after();
            Check again = probe.firstFromStoreAfterThaw();
            lines.add(String.format("CHAOS %s | pod %d, %s frozen: %s before its breaker opened%s; then %d checks answered by the open breaker%s, "
                            + "%d half-open probes, %d checks by the deadline | meters until open: %s | over the freeze: %s | store again %s after the thaw",
                    scenario.name(), probe.pod.index(), shardName,
                    before == null ? "never opened" : before.size() + " store calls (" + describe(before) + ")",
                    before == null ? "" : String.format(" (design: %d)", breaker.failuresToOpen()),
                    refused.length, refused.length == 0 ? "" : String.format(" (p50 %.2f ms, p99 %.2f ms, slowest %.2f ms)",
                            refused[(refused.length - 1) / 2], refused[(int) Math.floor(0.99 * (refused.length - 1))], refused[refused.length - 1]),
                    after.stream().filter(c -> c.by() != By.BREAKER).count(),
                    probe.checks().stream().filter(c -> c.by() == By.DEADLINE).count(),
                    open == null ? "-" : delta(start, open), delta(start, end),
                    again == null ? "never" : String.format("%.0f ms", (again.answer().sentNanos() - thawingNanos) / 1e6)));
        }
        return lines;
    }

    private static String describe(List<Check> checks) {
        return checks.stream().map(c -> String.format("%s by %s in %.1f ms%s", c.answer().target().ruleId(), c.by().toString().toLowerCase(),
                c.answer().latencyMs(), c.failedCallMs() > 0 ? String.format(", its store call %.1f ms", c.failedCallMs()) : "")).collect(Collectors.joining("; "));
    }

    private static String delta(Reading from, Reading to) {
        return String.format("breaker calls{failed} +%d, not_permitted +%.0f, tollgate.store.calls{outcome=timeout} +%d (all shards), "
                        + "tollgate.check.deadline.exceeded +%.0f (all shards)",
                to.failed() - from.failed(), to.refused() - from.refused(), to.storeTimeouts() - from.storeTimeouts(), to.deadlineExceeded() - from.deadlineExceeded());
    }

    /**
     * What answered a check. The probed shard's meters are the probe's alone (one check at a time per pod), while the
     * pod's deadline count is also the load's on the other shards: a deadline answer is one the deadline count agrees
     * with and whose store call had not ended by then, or ended only after the deadline (a call the deadline cut
     * short can end before the meters are read again; an earlier check's late call can end during this one).
     */
    private By by(Reading before, Reading after, double failedCallMs) {
        boolean deadlinePassed = after.deadlineExceeded() > before.deadlineExceeded();
        if (after.refused() > before.refused()) {
            return By.BREAKER;
        }
        if (after.successful() > before.successful()) {
            return By.STORE;
        }
        if (after.failed() > before.failed()) {
            return deadlinePassed && failedCallMs >= deadlineMs ? By.DEADLINE : By.TIMEOUT;
        }
        return deadlinePassed ? By.DEADLINE : By.UNKNOWN;
    }

    // ---- one pod's probe

    /** The meters one pod keeps of the probed shard's breaker, and its pod-wide deadline and timeout counts. */
    private static final class PodMeters {

        private final MeterRegistry registry;
        private final Timer failed;
        private final Timer successful;
        private final Counter refused;
        private final Gauge open;
        private final Counter deadlineExceeded;

        PodMeters(MeterRegistry registry, String shard) {
            this.registry = registry;
            this.failed = registry.get("resilience4j.circuitbreaker.calls").tag("name", shard).tag("kind", "failed").timer();
            this.successful = registry.get("resilience4j.circuitbreaker.calls").tag("name", shard).tag("kind", "successful").timer();
            this.refused = registry.get("resilience4j.circuitbreaker.not.permitted.calls").tag("name", shard).counter();
            this.open = registry.get("resilience4j.circuitbreaker.state").tag("name", shard).tag("state", "open").gauge();
            this.deadlineExceeded = registry.get(LimiterMetrics.DEADLINE_EXCEEDED).counter();
        }

        Reading read() {
            // per script, each registered at its first timeout
            long storeTimeouts = registry.find(LimiterMetrics.STORE_CALLS).tag("outcome", "timeout").timers().stream().mapToLong(Timer::count).sum();
            return new Reading(failed.count(), failed.totalTime(TimeUnit.MILLISECONDS), successful.count(), refused.count(), open.value() == 1, deadlineExceeded.count(), storeTimeouts);
        }
    }

    private final class PodProbe {

        private final Pods.Pod pod;
        private final PodMeters meters;
        private final List<Check> checks = new ArrayList<>();
        private final Thread thread;
        private volatile Reading start;

        PodProbe(Pods.Pod pod, PodMeters meters) {
            this.pod = pod;
            this.meters = meters;
            this.thread = new Thread(this::run, "chaos-probe-" + pod.index());
            this.thread.setDaemon(true);
        }

        void start() {
            start = meters.read();
            thread.start();
        }

        private void run() {
            while (!closed) {
                int next = nextTarget.getAndIncrement();
                if (next >= targets.size()) {
                    return; // then the store never answers it again: counted by storeAnswersAgain
                }
                Check check = check(targets.get(next));
                if (check == null) {
                    return;
                }
                synchronized (checks) {
                    checks.add(check);
                }
                if (over()) {
                    return;
                }
                try {
                    Thread.sleep(PAUSE.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        /**
         * Over when the recovery budget since the thaw has passed and the store has answered again (or a second more
         * has passed): the fault's budget, no longer, since at 5 ms the box times out a call to the thawed shard now
         * and then as to any other, and the ledger would blame that on the fault.
         */
        private boolean over() {
            long thawing = thawingNanos;
            long since = System.nanoTime() - thawing;
            long budget = scenario.ledger().limits().recovery().toNanos();
            return thawing > 0 && since > budget - 2 * PAUSE.toNanos() && (firstFromStoreAfterThaw() != null || since > budget + 1_000_000_000L);
        }

        private Check check(Target target) {
            Reading before = meters.read();
            long sentNanos = System.nanoTime();
            long sentWall = System.currentTimeMillis();
            Answer answer;
            try {
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(pod.check()).timeout(scenario.ledger().limits().clientTimeout())
                        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(target.body())).build(),
                        HttpResponse.BodyHandlers.ofString());
                answer = Answer.of(target, pod.index(), sentNanos, sentWall, response);
            } catch (HttpTimeoutException e) {
                answer = Answer.none(target, pod.index(), sentNanos, sentWall, Answer.Kind.CLIENT_TIMEOUT, e);
            } catch (IOException e) {
                answer = Answer.none(target, pod.index(), sentNanos, sentWall, Answer.Kind.FAILED, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
            Reading after = meters.read();
            scenario.ledger().record(answer);
            double failedCallMs = after.failedMs() - before.failedMs();
            return new Check(answer, by(before, after, failedCallMs), failedCallMs, after);
        }

        List<Check> checks() {
            synchronized (checks) {
                return List.copyOf(checks);
            }
        }

        /** Those answered before the thaw began: the shard was frozen from their start to their end. */
        List<Check> duringFreeze() {
            return checks().stream().filter(c -> thawingNanos < 0 || c.answer().answeredNanos() < thawingNanos).toList();
        }

        /** The checks of the freeze before the first that the breaker refused, or null when it refused none. */
        List<Check> beforeOpen() {
            List<Check> frozen = duringFreeze();
            for (int i = 0; i < frozen.size(); i++) {
                if (frozen.get(i).by() == By.BREAKER) {
                    return frozen.subList(0, i);
                }
            }
            return null;
        }

        /** The checks of the freeze from the first that the breaker refused on. */
        List<Check> afterOpen() {
            List<Check> frozen = duringFreeze();
            List<Check> before = beforeOpen();
            return before == null ? List.of() : frozen.subList(before.size(), frozen.size());
        }

        Check firstFromStoreAfterThaw() {
            return checks().stream().filter(c -> c.by() == By.STORE && c.answer().sentNanos() > thawingNanos).findFirst().orElse(null);
        }
    }
}
