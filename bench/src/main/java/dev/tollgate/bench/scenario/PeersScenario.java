package dev.tollgate.bench.scenario;

import dev.tollgate.bench.Bench;
import dev.tollgate.bench.Scenario;
import dev.tollgate.bench.fleet.Contender;
import dev.tollgate.bench.load.ClosedLoop;
import dev.tollgate.bench.load.OpenLoop;
import dev.tollgate.bench.load.Stats;
import dev.tollgate.bench.load.Timeline;
import dev.tollgate.bench.load.Timeline.Series;
import dev.tollgate.bench.peer.Bucket4jPeer;
import dev.tollgate.bench.peer.FixedWindowPeer;
import dev.tollgate.bench.peer.GatewayScriptPeer;
import dev.tollgate.bench.peer.Peer;
import dev.tollgate.bench.peer.TollgatePeer;
import dev.tollgate.bench.report.Charts;
import dev.tollgate.bench.report.Format;
import dev.tollgate.bench.report.Section;
import dev.tollgate.bench.report.Table;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * Tollgate and its peers on the same cluster in the same run, the way the design's figures were taken:
 * Lettuce async, a fixed number of checks in flight, 1,000 uniform keys and one hot key.
 */
final class PeersScenario implements Scenario {

    enum Pattern {
        UNIFORM("1,000 uniform keys", 1_000, 1_000, 1_000),
        HOT("one hot key", 1, 25_000, 25_000);

        final String label;
        final int keys;
        final int rate;
        final int burst;

        Pattern(String label, int keys, int rate, int burst) {
            this.label = label;
            this.keys = keys;
            this.rate = rate;
            this.burst = burst;
        }
    }

    enum Kind { TOLLGATE_NONE, TOLLGATE_ALL, BUCKET4J, GATEWAY, FIXED_WINDOW }

    record Run(double checksPerSecond, double callsPerCheck, double p99Nanos, double admittedVsExact, double peakRatio,
               long timeouts, long fallback, long sent) {
    }

    @Override
    public int number() {
        return 6;
    }

    @Override
    public String title() {
        return "Peers on the same cluster: Bucket4j, Spring Cloud Gateway's script, a fixed window";
    }

    @Override
    public Section run(Bench bench, Charts charts) {
        var options = bench.options();
        Map<Pattern, Map<Kind, List<Run>>> runs = new EnumMap<>(Pattern.class);
        for (Pattern pattern : Pattern.values()) {
            Map<Kind, List<Run>> byKind = new EnumMap<>(Kind.class);
            for (Kind kind : Kind.values()) {
                byKind.put(kind, new ArrayList<>());
            }
            runs.put(pattern, byKind);
        }
        RedisClusterClient client = RedisClusterClient.create(bench.cluster().seedUris().stream().map(RedisURI::create).toList());
        client.setOptions(ClusterClientOptions.builder()
                .timeoutOptions(TimeoutOptions.builder().fixedTimeout(options.commandTimeout()).build())
                .build());
        try (StatefulRedisClusterConnection<String, byte[]> bytes = client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
             StatefulRedisClusterConnection<String, String> strings = client.connect()) {
            for (int repeat = 0; repeat < options.repeats(); repeat++) {
                for (Pattern pattern : Pattern.values()) {
                    for (Kind kind : Kind.values()) {
                        Peer peer = switch (kind) {
                            case TOLLGATE_NONE -> new TollgatePeer("Tollgate NONE (1 pod)", Contender.PER_REQUEST, bench, pattern.rate, pattern.burst);
                            case TOLLGATE_ALL -> new TollgatePeer("Tollgate ALL (1 pod)", Contender.OPTIMIZED, bench, pattern.rate, pattern.burst);
                            case BUCKET4J -> new Bucket4jPeer(bytes.async(), pattern.rate, pattern.burst);
                            case GATEWAY -> new GatewayScriptPeer(bench.redis(), pattern.rate, pattern.burst);
                            case FIXED_WINDOW -> new FixedWindowPeer(strings.async(), pattern.rate);
                        };
                        System.out.printf("  scenario 6: %s, %s, repeat %d%n", pattern.label, peer.name(), repeat + 1);
                        runs.get(pattern).get(kind).add(runOnce(bench, pattern, peer));
                        bench.pause();
                    }
                }
            }
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        return write(bench, charts, runs);
    }

    private Run runOnce(Bench bench, Pattern pattern, Peer peer) {
        var options = bench.options();
        double warm = options.seconds(1);
        double measure = options.seconds(2);
        double total = warm + measure;
        String prefix = bench.key("s6_" + pattern.name().toLowerCase());
        String[] keys = new String[pattern.keys];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = prefix + "_" + i;
        }
        Timeline timeline = bench.newRun(total, null);
        long callsBefore = peer.storeCalls();
        Histogram latency = OpenLoop.newHistogram();
        int inFlight = Math.max(1, (int) Math.round(options.inFlight() * Math.min(1, options.loadScale())));
        LongAdder[] sentByKey = adders(keys.length);
        LongAdder[] admittedByKey = adders(keys.length);
        int unanswered = new ClosedLoop(timeline, inFlight).run(total, warm, 2.0, latency, () -> {
            int k = keys.length == 1 ? 0 : ThreadLocalRandom.current().nextInt(keys.length);
            sentByKey[k].increment();
            return peer.acquire(keys[k]).thenApply(answer -> {
                if (answer.admitted()) {
                    admittedByKey[k].increment();
                }
                return answer;
            });
        });
        long calls = peer.storeCalls() - callsBefore;
        long sent = timeline.sum(Series.SENT, 0, total);
        long answered = timeline.sum(Series.ALLOWED, warm, total) + timeline.sum(Series.DENIED, warm, total);
        // what an exact bucket (rate, burst, full at the start) admits of what each key was sent over the run
        double bound = pattern.rate * total + pattern.burst;
        double exact = 0;
        double admitted = 0;
        for (int k = 0; k < keys.length; k++) {
            exact += Math.min(sentByKey[k].sum(), bound);
            admitted += admittedByKey[k].sum();
        }
        double meanPer100ms = timeline.sum(Series.ALLOWED, warm, total) / measure * 0.1;
        long peak = timeline.peak(Series.ALLOWED, warm, total, 10);
        return new Run(answered / measure, sent == 0 ? Double.NaN : (double) calls / sent,
                latency.getTotalCount() == 0 ? Double.NaN : latency.getValueAtPercentile(99),
                exact == 0 ? Double.NaN : admitted / exact - 1, meanPer100ms == 0 ? Double.NaN : peak / meanPer100ms,
                timeline.sum(Series.FAILED, 0, total) + unanswered, timeline.sum(Series.FALLBACK, 0, total), sent);
    }

    private static LongAdder[] adders(int n) {
        LongAdder[] out = new LongAdder[n];
        for (int i = 0; i < n; i++) {
            out[i] = new LongAdder();
        }
        return out;
    }

    private Section write(Bench bench, Charts charts, Map<Pattern, Map<Kind, List<Run>>> runs) {
        var options = bench.options();
        Section section = new Section(number(), title());
        int inFlight = Math.max(1, (int) Math.round(options.inFlight() * Math.min(1, options.loadScale())));
        section.method("Each limiter in turn, on this run's cluster, with " + inFlight + " checks in flight (closed loop: "
                + "a new check as soon as one answers) for " + Format.seconds(options.seconds(1) + options.seconds(2))
                + ", of which the last " + Format.seconds(options.seconds(2)) + " are measured; " + options.repeats()
                + " repeats interleaved, medians reported. **1,000 uniform keys**: every check on a random key, each key "
                + "limited to " + Format.count(Pattern.UNIFORM.rate) + "/s with a burst of " + Format.count(Pattern.UNIFORM.burst)
                + " (far above what one key gets, so nearly every check is allowed and the cost of an allowed check is "
                + "compared, as in the design's figures). **One hot key**: every check on one key limited "
                + "to " + Format.count(Pattern.HOT.rate) + "/s, burst " + Format.count(Pattern.HOT.burst) + ", which the "
                + "faster limiters run well above. The same rate and burst for every limiter (the fixed window: that many "
                + "per whole second).");
        section.method("Peers: **Tollgate NONE/ALL** — one engine (one pod) and the design's script, through the engine's "
                + "Lettuce client. **Bucket4j** " + "8.19.0 (`bucket4j_jdk17-lettuce`, compare-and-swap: GET the state, compute "
                + "in the client, EVAL a CAS script, retry on a lost race), expiry after write, async API, its request "
                + "timeout at " + Bucket4jPeer.REQUEST_TIMEOUT.toMillis() + " ms, which ends a check's CAS retries (failed "
                + "checks are counted as timeouts). **Spring Cloud Gateway** — its RedisRateLimiter's token bucket, "
                + "re-implemented from its semantics (`lua/peer_gateway_request_rate_limiter.lua`), one EVALSHA through the "
                + "same client as Tollgate. **Fixed window** — INCR of a per-second counter, EXPIRE when it was created. "
                + "Store calls are Redis commands or script calls per check, retries included. p99 is the closed-loop "
                + "service time. \"Admitted vs exact\": admitted over the whole run against what an exact token bucket "
                + "(that rate and burst, full at the start) admits of what each key was sent, min(sent, rate × T + burst) "
                + "per key: above zero is overshoot, below is under-admission; a fixed window can exceed it because a run "
                + "of T seconds touches T + 1 windows. \"Peak 100 ms ÷ mean\": the most admitted in any 100 ms of the "
                + "measured part against the mean admitted per 100 ms: near 1 is smooth; a limiter that refills a second's "
                + "worth at once at each whole second shows a spike there when it runs over its limit. Timeouts and fallback "
                + "answers are summed over the repeats, with their share of all checks; a run in which a store stall opened "
                + "Tollgate's breaker answers from the fallback bucket at local speed, which is why throughput is a median.");
        for (Pattern pattern : Pattern.values()) {
            Table table = new Table("**" + pattern.label + "**", List.of("limiter", "checks/s", "store calls per check", "p99",
                    "admitted vs exact", "peak 100 ms ÷ mean", "timeouts", "fallback answers"));
            for (Map.Entry<Kind, List<Run>> e : runs.get(pattern).entrySet()) {
                List<Run> r = e.getValue();
                table.row(name(e.getKey()), Format.count(median(r, Run::checksPerSecond)), Format.ratio(median(r, Run::callsPerCheck)),
                        Format.millis(median(r, Run::p99Nanos)), Format.signedPercent(median(r, Run::admittedVsExact)),
                        Format.ratio(median(r, Run::peakRatio)), share(r, Run::timeouts), share(r, Run::fallback));
            }
            section.table(table);
        }
        section.note("Design figures on a machine like this one: the design's script ~25–28K checks/s over 1,000 uniform keys and "
                + "~60–70K/s on one hot key; Bucket4j ~14–23K/s uniform and ~600/s on a hot key (about 128 Redis commands per check).");

        List<String> categories = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            categories.add(name(kind));
        }
        Map<String, List<Double>> series = new LinkedHashMap<>();
        for (Pattern pattern : Pattern.values()) {
            List<Double> values = new ArrayList<>();
            for (Kind kind : Kind.values()) {
                values.add(median(runs.get(pattern).get(kind), Run::checksPerSecond));
            }
            series.put(pattern.label, values);
        }
        section.chart(charts.bars("s6-peers-throughput", "Checks per second, " + inFlight + " in flight, same cluster",
                "limiter", "checks/s (log scale)", categories, series, true, false, null));
        Map<String, List<Double>> callSeries = new LinkedHashMap<>();
        for (Pattern pattern : Pattern.values()) {
            List<Double> values = new ArrayList<>();
            for (Kind kind : Kind.values()) {
                values.add(median(runs.get(pattern).get(kind), Run::callsPerCheck));
            }
            callSeries.put(pattern.label, values);
        }
        section.chart(charts.bars("s6-peers-store-calls", "Store calls per check, same cluster", "limiter",
                "store calls per check (log scale)", categories, callSeries, true, false, null));
        return section;
    }

    /** A count summed over the repeats, with its share of all checks sent in them. */
    private static String share(List<Run> runs, java.util.function.ToLongFunction<Run> metric) {
        long count = runs.stream().mapToLong(metric).sum();
        long sent = runs.stream().mapToLong(Run::sent).sum();
        return count == 0 ? "0" : Format.count(count) + " (" + Format.percent((double) count / Math.max(1, sent)) + ")";
    }

    private static String name(Kind kind) {
        return switch (kind) {
            case TOLLGATE_NONE -> "Tollgate NONE";
            case TOLLGATE_ALL -> "Tollgate ALL";
            case BUCKET4J -> "Bucket4j (CAS)";
            case GATEWAY -> "Spring Cloud Gateway script";
            case FIXED_WINDOW -> "fixed window INCR+EXPIRE";
        };
    }

    private static double median(List<Run> runs, java.util.function.ToDoubleFunction<Run> metric) {
        return Stats.median(runs.stream().mapToDouble(metric).filter(v -> !Double.isNaN(v)).toArray());
    }
}
