package dev.tollgate.bench.scenario;

import dev.tollgate.bench.Bench;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;

/** The design's plans, as token-bucket rules (rate per second, burst). */
final class Plans {

    static final Rule ENTERPRISE = plan("enterprise", 1_000, 2_000);
    static final Rule GROWTH = plan("growth", 100, 200);
    static final Rule FREE = plan("free", 10, 20);
    /** The route bucket every check also spends from; looser than any plan, so the plan is the tightest. */
    static final Rule ROUTE = Rule.tokenBucket("route", Bench.DOMAIN, 2_000, 4_000).withMatch(new Match(null, "/v1/labels"));
    /** The design's marketplace partner: a 25,000/s override with a burst of 50,000. */
    static final Rule PARTNER = plan("partner", 25_000, 50_000);

    private Plans() {
    }

    /** A plan's bucket: every plan here is a token bucket. */
    static Limit.TokenBucket bucket(Rule plan) {
        return (Limit.TokenBucket) plan.limit();
    }

    /** A rule for one plan (the validator refuses a rule that would cover every plan and route). */
    static Rule plan(String id, int ratePerS, int burst) {
        return Rule.tokenBucket(id, Bench.DOMAIN, ratePerS, burst).withMatch(new Match(id, null));
    }
}
