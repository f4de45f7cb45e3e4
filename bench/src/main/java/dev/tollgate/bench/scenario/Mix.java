package dev.tollgate.bench.scenario;

import dev.tollgate.bench.Bench;
import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.rules.RuleBook;
import dev.tollgate.limiter.rules.StaticRuleBook;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The design's traffic mix ("Bucket updates per second"): 10% of checks from clients already over their
 * limit; of the rest 75% Enterprise, 15% Growth, 10% Free. Every check carries two entries on the same
 * key, the plan's account bucket and the route bucket, so both go in one script call. Clients under
 * their limit run at about half of it; the over-limit clients are Free keys sending 10× their limit.
 *
 * <p>Keys are named {@code <class>_<n>-r<run>}, so a store call's class can be read off its Redis key.
 */
final class Mix {

    enum Kind {
        OVER("over-limit", Plans.FREE, 0.10, 4),
        ENTERPRISE("Enterprise", Plans.ENTERPRISE, 0.90 * 0.75, 6),
        GROWTH("Growth", Plans.GROWTH, 0.90 * 0.15, 9),
        FREE("Free", Plans.FREE, 0.90 * 0.10, 60);

        final String label;
        final Rule plan;
        final double share;
        final int keys;

        Kind(String label, Rule plan, double share, int keys) {
            this.label = label;
            this.plan = plan;
            this.share = share;
            this.keys = keys;
        }

        String prefix() {
            return name().toLowerCase();
        }
    }

    /** Checks per second at which the per-key rates above hold (Enterprise keys at 45% of their limit). */
    static final double NOMINAL_RATE = 4_000;

    static final RuleBook RULES = new StaticRuleBook(List.of(Plans.ENTERPRISE, Plans.GROWTH, Plans.FREE, Plans.ROUTE));

    private final CheckRequest[][] requests = new CheckRequest[Kind.values().length][];
    private final double[] cumulative = new double[Kind.values().length];

    Mix(Bench bench) {
        String run = bench.key("");
        double sum = 0;
        for (Kind kind : Kind.values()) {
            List<CheckRequest> forKind = new ArrayList<>();
            for (int i = 0; i < kind.keys; i++) {
                String key = kind.prefix() + "_" + i + run;
                forKind.add(new CheckRequest(Bench.DOMAIN, List.of(
                        CheckEntry.of(kind.plan.id(), key, 1), CheckEntry.of(Plans.ROUTE.id(), key, 1))));
            }
            requests[kind.ordinal()] = forKind.toArray(CheckRequest[]::new);
            sum += kind.share;
            cumulative[kind.ordinal()] = sum;
        }
    }

    Kind pickKind() {
        double r = ThreadLocalRandom.current().nextDouble() * cumulative[cumulative.length - 1];
        for (Kind kind : Kind.values()) {
            if (r < cumulative[kind.ordinal()]) {
                return kind;
            }
        }
        return Kind.FREE;
    }

    CheckRequest pick(Kind kind) {
        CheckRequest[] forKind = requests[kind.ordinal()];
        return forKind[ThreadLocalRandom.current().nextInt(forKind.length)];
    }

    /** The class of a Redis key {@code rl:{<class>_<n>-r<run>}:<rule>}. */
    static String classOf(String redisKey) {
        int open = redisKey.indexOf('{');
        int underscore = redisKey.indexOf('_', open + 1);
        if (open < 0 || underscore < 0) {
            return "other";
        }
        return redisKey.substring(open + 1, underscore);
    }

    /** Offered rate per key of a class, at the mix's total rate. */
    static double perKeyRate(Kind kind, double totalRate) {
        return totalRate * kind.share / kind.keys;
    }
}
