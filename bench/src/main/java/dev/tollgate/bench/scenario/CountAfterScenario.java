package dev.tollgate.bench.scenario;

import dev.tollgate.bench.Bench;
import dev.tollgate.bench.Scenario;
import dev.tollgate.bench.fleet.TollgatePod;
import dev.tollgate.bench.load.Answer;
import dev.tollgate.bench.load.OpenLoop;
import dev.tollgate.bench.load.Timeline;
import dev.tollgate.bench.load.Timeline.Series;
import dev.tollgate.bench.report.Charts;
import dev.tollgate.bench.report.Format;
import dev.tollgate.bench.report.Section;
import dev.tollgate.bench.report.Table;
import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.rule.Counting;
import dev.tollgate.common.rule.Identity;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.Limiter;
import dev.tollgate.limiter.LimiterSettings;
import dev.tollgate.limiter.Optimizations;
import dev.tollgate.limiter.after.CountAfterSettings;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.rules.StaticRuleBook;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Issue 31's count-after target: a flood of 100,000 distinct IPs/s on a per-IP rule that counts after, plus a few
 * attackers well over their limit, on 10 and on 50 pods. Measured: store calls per request (every script call at the
 * engine's store port, flushes included), and how far each attacker ran over its limit against the stated bound.
 */
final class CountAfterScenario implements Scenario {

    private static final double DISTINCT_PER_S = 100_000;
    private static final int ATTACKERS = 20;
    private static final double PER_ATTACKER_PER_S = 500;
    private static final int MAX_IN_FLIGHT = 50_000;
    /** 10/s per IP, burst 20: an allowance of one request per pod per 100 ms flush answer, a bound of 2 per pod. */
    static final Rule PER_IP = new Rule("flood-ip", Bench.DOMAIN, new Match(null, "/"), Identity.IP, new Limit.TokenBucket(10, 1, 20),
            null, null, 1, Counting.AFTER, 1);

    record Result(int pods, long sent, double offeredPerS, double sentPerS, long storeCalls, double callsPerRequest, long admittedAttackers,
                  long worstOver, long worstOverCounted, long bound, long late, double seconds, long dropped, long fallbackAdmitted, long flushFailures,
                  Map<String, Long> failuresByReason, long resent, long resentApplied) {
    }

    @Override
    public int number() {
        return 12;
    }

    @Override
    public String title() {
        return "Count after: a flood of 100,000 distinct IPs/s on a per-IP rule";
    }

    @Override
    public Section run(Bench bench, Charts charts) {
        List<Result> results = new ArrayList<>();
        for (int pods : new int[] {10, Bench.PODS}) {
            System.out.printf("  scenario 12: %d pods%n", pods);
            results.add(runOnce(bench, pods));
            bench.pause();
        }
        return write(bench, charts, results);
    }

    private Result runOnce(Bench bench, int pods) {
        var options = bench.options();
        double warm = options.seconds(2);
        double measure = options.seconds(6);
        double distinct = options.rate(DISTINCT_PER_S);
        double attacks = options.rate(ATTACKERS * PER_ATTACKER_PER_S);
        double total = distinct + attacks;
        String run = bench.key("s12");
        List<Limiter> engines = new ArrayList<>();
        List<TollgatePod> fleet = new ArrayList<>();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        for (int i = 0; i < pods; i++) {
            Limiter engine = Limiter.builder(new StaticRuleBook(List.of(PER_IP)), bench.store())
                    .settings(LimiterSettings.DEFAULTS.withOptimizations(Optimizations.ALL).withCountAfter(CountAfterSettings.DEFAULTS))
                    .metrics(new LimiterMetrics(registry))
                    .livePods(() -> pods)
                    .build();
            engines.add(engine);
            fleet.add(new TollgatePod(engine));
        }
        AtomicLongArray admitted = new AtomicLongArray(ATTACKERS);
        AtomicLongArray fallbackByAttacker = new AtomicLongArray(ATTACKERS);
        double attackShare = attacks / total;
        Timeline timeline = bench.newRun(warm + measure, null);
        long started = System.nanoTime();
        OpenLoop load = new OpenLoop(timeline, total, MAX_IN_FLIGHT, sequence -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            TollgatePod pod = fleet.get(random.nextInt(fleet.size()));
            if (random.nextDouble() < attackShare) {
                int attacker = random.nextInt(ATTACKERS);
                return pod.check(request(run + "-a" + attacker)).whenComplete((answer, error) -> {
                    if (answer == Answer.ALLOWED || answer == Answer.FALLBACK_ALLOWED) {
                        admitted.incrementAndGet(attacker);
                    }
                    if (answer == Answer.FALLBACK_ALLOWED) {
                        fallbackByAttacker.incrementAndGet(attacker);
                    }
                });
            }
            return pod.check(request(run + "-d" + sequence));
        });
        load.runUntil(warm);
        load.runUntil(warm + measure);
        load.drain(2);
        double seconds = (System.nanoTime() - started) / 1e9;
        for (Limiter engine : engines) {
            engine.close();
        }
        long sent = timeline.sum(Series.SENT, warm, warm + measure);
        long calls = timeline.sum(Series.STORE_CALLS, warm, warm + measure);
        // each attacker was sent requests for the whole run: its limit is the burst and the refill of the run
        long limit = 20 + (long) Math.ceil(10 * seconds);
        long worstOver = 0;
        // what the bound is about: admitted on the pods' counts and the store's answers, the fail-open fallback's
        // admits (an inline call that failed) left out, as that mode's own bucket bounds them
        long worstOverCounted = 0;
        long admittedAll = 0;
        long fallbackAdmitted = 0;
        for (int i = 0; i < ATTACKERS; i++) {
            admittedAll += admitted.get(i);
            fallbackAdmitted += fallbackByAttacker.get(i);
            worstOver = Math.max(worstOver, admitted.get(i) - limit);
            worstOverCounted = Math.max(worstOverCounted, admitted.get(i) - fallbackByAttacker.get(i) - limit);
        }
        long bound = pods * CountAfterSettings.DEFAULTS.overshootBoundPerPod(10, 1);
        long dropped = (long) registry.counter(LimiterMetrics.COUNT_AFTER_DROPPED).count();
        Map<String, Long> failuresByReason = new TreeMap<>();
        registry.find(LimiterMetrics.STORE_CALLS).tag("script", "count_after").timers().stream()
                .filter(timer -> !"ok".equals(timer.getId().getTag("outcome")))
                .forEach(timer -> failuresByReason.merge(timer.getId().getTag("outcome"), timer.count(), Long::sum));
        long flushFailures = failuresByReason.values().stream().mapToLong(Long::longValue).sum();
        long resentApplied = resent(registry, true);
        return new Result(pods, sent, total, sent / measure, calls, sent == 0 ? Double.NaN : (double) calls / sent, admittedAll,
                worstOver, worstOverCounted, bound, load.late(), seconds, dropped, fallbackAdmitted, flushFailures, failuresByReason,
                resentApplied + resent(registry, false), resentApplied);
    }

    private static long resent(SimpleMeterRegistry registry, boolean applied) {
        var counter = registry.find(LimiterMetrics.COUNT_AFTER_RESENT).tag("applied", Boolean.toString(applied)).counter();
        return counter == null ? 0 : (long) counter.count();
    }

    private static CheckRequest request(String ip) {
        return new CheckRequest(Bench.DOMAIN, List.of(CheckEntry.of(PER_IP.id(), ip, 1)));
    }

    private Section write(Bench bench, Charts charts, List<Result> results) {
        var options = bench.options();
        Section section = new Section(number(), title());
        section.method("A per-IP rule of 10/s, burst 20, with counting: after, on pods flushing every 100 ms. Offered open-loop: "
                + Format.rate(options.rate(DISTINCT_PER_S)) + " of requests each from an IP never seen before, and "
                + ATTACKERS + " attackers at " + Format.rate(options.rate(PER_ATTACKER_PER_S)) + " each, every request on a random pod. "
                + "Store calls are every script call at the engine's store port (flushes and any inline checks), per request sent, over "
                + Format.seconds(options.seconds(6)) + " after a " + Format.seconds(options.seconds(2)) + " warm-up. An attacker's"
                + " overshoot is what it was admitted over its limit for the whole run (burst + 10/s × the run); the bound is pods"
                + " × 2 × the allowance per flush (max(1, ⌈10/s × 100 ms⌉) = 1), and holds for what the pods admitted on their"
                + " counts and the store's answers; an inline call that fails is answered by the rule's fail mode, whose"
                + " fallback bucket admits on top of it (its own column). Flush calls have their own timeout ("
                + Format.seconds(CountAfterSettings.DEFAULTS.flushTimeout().toMillis() / 1000.0) + ", not the check's), and one that"
                + " fails is resent with its id, so the store counts it once.");
        Table table = new Table(null, List.of("pods", "offered", "sent (measured)", "store calls", "store calls per request",
                "attackers admitted", "worst attacker over its limit", "… of it counted (fallback admits left out)", "stated bound",
                "flush calls failed",
                "failed calls resent and answered", "of which the store had counted", "units dropped uncounted",
                "attacker answers from the fallback bucket"));
        for (Result r : results) {
            table.row(Integer.toString(r.pods()), Format.rate(r.offeredPerS()), Format.rate(r.sentPerS()), Format.count(r.storeCalls()),
                    String.format("%.4f", r.callsPerRequest()), Format.count(r.admittedAttackers()), Format.count(Math.max(0, r.worstOver())),
                    Format.count(Math.max(0, r.worstOverCounted())), Format.count(r.bound()), Format.count(r.flushFailures()), Format.count(r.resent()), Format.count(r.resentApplied()),
                    Format.count(r.dropped()), Format.count(r.fallbackAdmitted()));
        }
        section.table(table);
        List<String> categories = results.stream().map(r -> r.pods() + " pods").toList();
        Map<String, List<Double>> series = new LinkedHashMap<>();
        series.put("worst attacker over its limit", results.stream().map(r -> (double) Math.max(0, r.worstOver())).toList());
        series.put("… of it counted", results.stream().map(r -> (double) Math.max(0, r.worstOverCounted())).toList());
        series.put("stated bound", results.stream().map(r -> (double) r.bound()).toList());
        section.chart(charts.bars("s12-count-after-over", "Count after: the worst attacker's overshoot against the stated bound",
                "fleet", "requests over the limit", categories, series, false, false, null));
        for (Result r : results) {
            section.check("Count after on " + r.pods() + " pods: ≤ 0.01 store calls per request", String.format("%.4f", r.callsPerRequest()),
                    r.callsPerRequest() <= 0.01);
            section.check("Count after on " + r.pods() + " pods: over the limit on the pods' counts within the bound (" + r.bound() + ")",
                    Format.count(Math.max(0, r.worstOverCounted())), r.worstOverCounted() <= r.bound());
            if (r.dropped() > 0 || r.fallbackAdmitted() > 0) {
                section.note(r.pods() + " pods: " + Format.count(r.flushFailures()) + " flush calls failed (by reason: "
                        + r.failuresByReason() + "; resent with their ids,"
                        + " so counted once), " + Format.count(r.dropped()) + " admitted units were dropped uncounted (their calls"
                        + " failed past the resend age), and " + Format.count(r.fallbackAdmitted()) + " attacker requests were admitted"
                        + " by the fail-open fallback after an inline call failed: both add to what an attacker got past its limit.");
            }
            if (r.late() > 0) {
                section.note(r.pods() + " pods: the sender fell behind its schedule (" + Format.count(r.late())
                        + " requests sent over 10 ms late): the machine could not offer the full rate.");
            }
        }
        return section;
    }
}
