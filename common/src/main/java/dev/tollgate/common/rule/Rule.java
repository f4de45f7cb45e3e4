package dev.tollgate.common.rule;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Objects;

/**
 * One limit, as stored by rules-service and cached by every pod: which requests it is for, what it
 * admits ({@link Limit}, whose kind is the algorithm), and how it behaves when shadowed or cut off from
 * its counters. The record holds whatever numbers it is given:
 * {@link dev.tollgate.common.validation.RuleValidator} decides whether they can be enforced.
 *
 * <p>On the wire, in a rules file and in the store a rule is flat ({@link RuleFields}): JSON reads and
 * writes it through that shape, so its fields and their order are those of the rules API.
 */
public record Rule(
        String id,
        String domain,
        Match match,
        Identity identity,
        Limit limit,
        Mode mode,
        FailMode failMode,
        int maxCost,
        Counting counting,
        long version) {

    static final Identity DEFAULT_IDENTITY = Identity.API_KEY;
    static final Mode DEFAULT_MODE = Mode.ENFORCE;
    static final FailMode DEFAULT_FAIL_MODE = FailMode.OPEN;
    static final int DEFAULT_MAX_COST = 1;
    static final Counting DEFAULT_COUNTING = Counting.INLINE;

    public Rule {
        Objects.requireNonNull(limit, "a rule needs a limit (its algorithm and numbers)");
        match = match == null ? new Match(null, null) : match;
        identity = identity == null ? DEFAULT_IDENTITY : identity;
        mode = mode == null ? DEFAULT_MODE : mode;
        failMode = failMode == null ? DEFAULT_FAIL_MODE : failMode;
        counting = counting == null ? DEFAULT_COUNTING : counting;
    }

    /** A rule counted inline, the default: the shape of every rule before count-after existed. */
    public Rule(String id, String domain, Match match, Identity identity, Limit limit, Mode mode, FailMode failMode,
                int maxCost, long version) {
        this(id, domain, match, identity, limit, mode, failMode, maxCost, null, version);
    }

    /** An enforced, fail-open rule with the other defaults, at version 1. */
    public static Rule of(String id, String domain, Limit limit) {
        return new Rule(id, domain, null, null, limit, null, null, DEFAULT_MAX_COST, 1);
    }

    /** {@code ratePerS} per second up to {@code burst}: the design's plans. */
    public static Rule tokenBucket(String id, String domain, int ratePerS, int burst) {
        return of(id, domain, Limit.TokenBucket.perSecond(ratePerS, burst));
    }

    /** {@code limit} per trailing {@code windowS} on a caller's IP, failing closed: the design's login rule. */
    public static Rule slidingLog(String id, String domain, int limit, int windowS) {
        return new Rule(id, domain, null, Identity.IP, new Limit.SlidingLog(limit, windowS), null, FailMode.CLOSED,
                DEFAULT_MAX_COST, 1);
    }

    /** {@code limit} per UTC-aligned {@code windowS}: the design's daily quota. */
    public static Rule fixedWindow(String id, String domain, int limit, int windowS) {
        return of(id, domain, new Limit.FixedWindow(limit, windowS));
    }

    /** Read from the flat form, so that JSON and YAML name a rule's fields as the rules API does. */
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    static Rule fromFields(RuleFields fields) {
        return fields.toRule();
    }

    /** Written in the flat form: {@code "algorithm": "token_bucket", "rate_per_s": 100, ...}. */
    @JsonValue
    public RuleFields fields() {
        return RuleFields.of(this);
    }

    public Algorithm algorithm() {
        return limit.algorithm();
    }

    public Rule withLimit(Limit newLimit) {
        return new Rule(id, domain, match, identity, newLimit, mode, failMode, maxCost, counting, version);
    }

    public Rule withMatch(Match newMatch) {
        return new Rule(id, domain, newMatch, identity, limit, mode, failMode, maxCost, counting, version);
    }

    public Rule withMode(Mode newMode) {
        return new Rule(id, domain, match, identity, limit, newMode, failMode, maxCost, counting, version);
    }

    public Rule withFailMode(FailMode newFailMode) {
        return new Rule(id, domain, match, identity, limit, mode, newFailMode, maxCost, counting, version);
    }

    public Rule withMaxCost(int newMaxCost) {
        return new Rule(id, domain, match, identity, limit, mode, failMode, newMaxCost, counting, version);
    }

    public Rule withCounting(Counting newCounting) {
        return new Rule(id, domain, match, identity, limit, mode, failMode, maxCost, newCounting, version);
    }

    public Rule withVersion(long newVersion) {
        return new Rule(id, domain, match, identity, limit, mode, failMode, maxCost, counting, newVersion);
    }

    /**
     * The rule as it applies to {@code override}'s account: that account's rate and burst. Only a token
     * bucket has them (the validator refuses an override of any other rule), so any other rule stays as it is.
     */
    public Rule overriddenBy(AccountOverride override) {
        return limit instanceof Limit.TokenBucket bucket
                ? withLimit(bucket.withRateAndBurst(override.ratePerS(), override.burst()))
                : this;
    }

    /**
     * Whether each key's limit is split across regions by where its traffic is (region_budgets, rewritten
     * every 10 s by the budget rebalancer), or every region keeps its default share. Split: a key of an
     * account, its {@code api_key} or {@code user}, counted by a token bucket or a fixed window, the design's
     * "one limit per merchant". Not split: an {@code ip}, which a caller chooses (a client spraying addresses
     * would move one region's share per address and give each a row in every pod's snapshot), and a sliding
     * log, the login limit, keyed by whatever address or username the caller types. The pods report usage
     * for split limits only, and the rebalancer splits only these.
     */
    public boolean regionBudgeted() {
        return identity != Identity.IP && algorithm() != Algorithm.SLIDING_LOG;
    }

    public boolean shadow() {
        return mode == Mode.SHADOW;
    }

    public boolean failsClosed() {
        return failMode == FailMode.CLOSED;
    }

    public boolean countsAfter() {
        return counting == Counting.AFTER;
    }

    /** Two rules are the same limit when everything but the version matches. */
    public boolean sameLimitAs(Rule other) {
        return Objects.equals(withVersion(0), other.withVersion(0));
    }
}
