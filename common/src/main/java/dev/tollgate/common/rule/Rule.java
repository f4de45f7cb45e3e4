package dev.tollgate.common.rule;

import java.util.Objects;

/**
 * One limit, as stored by rules-service and cached by every pod.
 *
 * <p>Token buckets use {@code ratePerS} tokens per {@code periodS} seconds (1 unless a plan is
 * per-minute or per-hour) and {@code burst}; sliding logs and fixed windows use {@code limit} per
 * {@code windowS}. Fields of the other algorithm stay {@code null}. The record holds whatever it is
 * given: {@link dev.tollgate.common.validation.RuleValidator} decides whether it is usable.
 */
public record Rule(
        String id,
        String domain,
        Match match,
        Identity identity,
        Algorithm algorithm,
        Integer ratePerS,
        Integer periodS,
        Integer burst,
        Integer limit,
        Integer windowS,
        Mode mode,
        FailMode failMode,
        Integer maxCost,
        long version) {

    public Rule {
        match = match == null ? new Match(null, null) : match;
        identity = identity == null ? Identity.API_KEY : identity;
        mode = mode == null ? Mode.ENFORCE : mode;
        failMode = failMode == null ? FailMode.OPEN : failMode;
        if (algorithm == Algorithm.TOKEN_BUCKET && periodS == null) {
            periodS = 1;
        }
        maxCost = maxCost == null ? 1 : maxCost;
    }

    public static Rule tokenBucket(String id, String domain, int ratePerS, int burst) {
        return new Rule(id, domain, null, null, Algorithm.TOKEN_BUCKET, ratePerS, 1, burst,
                null, null, null, null, null, 1);
    }

    public static Rule slidingLog(String id, String domain, int limit, int windowS) {
        return new Rule(id, domain, null, Identity.IP, Algorithm.SLIDING_LOG, null, null, null,
                limit, windowS, null, FailMode.CLOSED, null, 1);
    }

    public static Rule fixedWindow(String id, String domain, int limit, int windowS) {
        return new Rule(id, domain, null, null, Algorithm.FIXED_WINDOW, null, null, null,
                limit, windowS, null, null, null, 1);
    }

    public Rule withMatch(Match newMatch) {
        return new Rule(id, domain, newMatch, identity, algorithm, ratePerS, periodS, burst, limit,
                windowS, mode, failMode, maxCost, version);
    }

    public Rule withMode(Mode newMode) {
        return new Rule(id, domain, match, identity, algorithm, ratePerS, periodS, burst, limit,
                windowS, newMode, failMode, maxCost, version);
    }

    public Rule withFailMode(FailMode newFailMode) {
        return new Rule(id, domain, match, identity, algorithm, ratePerS, periodS, burst, limit,
                windowS, mode, newFailMode, maxCost, version);
    }

    public Rule withMaxCost(int newMaxCost) {
        return new Rule(id, domain, match, identity, algorithm, ratePerS, periodS, burst, limit,
                windowS, mode, failMode, newMaxCost, version);
    }

    public Rule withPeriodS(int newPeriodS) {
        return new Rule(id, domain, match, identity, algorithm, ratePerS, newPeriodS, burst, limit,
                windowS, mode, failMode, maxCost, version);
    }

    public Rule withVersion(long newVersion) {
        return new Rule(id, domain, match, identity, algorithm, ratePerS, periodS, burst, limit,
                windowS, mode, failMode, maxCost, newVersion);
    }

    /** The rule with an account's override applied: same rule, that account's rate and burst. */
    public Rule withRateAndBurst(int newRatePerS, int newBurst) {
        return new Rule(id, domain, match, identity, algorithm, newRatePerS, periodS, newBurst, limit,
                windowS, mode, failMode, maxCost, version);
    }

    public boolean shadow() {
        return mode == Mode.SHADOW;
    }

    public boolean failsClosed() {
        return failMode == FailMode.CLOSED;
    }

    /** Two rules are the same limit when everything but the version matches. */
    public boolean sameLimitAs(Rule other) {
        return Objects.equals(withVersion(0), other.withVersion(0));
    }
}
