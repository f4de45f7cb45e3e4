package dev.tollgate.common.rule;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.ArrayList;
import java.util.List;

/**
 * A rule as it is written down: flat, every field optional, the fields of all three algorithms side by
 * side. This is the shape of the JSON (the rules API, the snapshot pods download, the history), of a
 * static rules file and of a {@code rules} row; {@link Rule} is read from and written as it. It exists
 * so that input can be judged field by field ({@link dev.tollgate.common.validation.RuleValidator}
 * names each missing or misplaced field) before it becomes a {@link Rule}, which cannot hold a field
 * of the wrong algorithm.
 *
 * <p>The defaults are applied here, before validation: an omitted {@code period_s} of a token bucket
 * is 1, an omitted {@code max_cost} 1, and so on.
 */
public record RuleFields(
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
        @JsonInclude(value = JsonInclude.Include.CUSTOM, valueFilter = InlineCounting.class) Counting counting,
        long version) {

    public RuleFields {
        match = match == null ? new Match(null, null) : match;
        identity = identity == null ? Rule.DEFAULT_IDENTITY : identity;
        mode = mode == null ? Rule.DEFAULT_MODE : mode;
        failMode = failMode == null ? Rule.DEFAULT_FAIL_MODE : failMode;
        if (algorithm == Algorithm.TOKEN_BUCKET && periodS == null) {
            periodS = Limit.TokenBucket.DEFAULT_PERIOD_S;
        }
        maxCost = maxCost == null ? Rule.DEFAULT_MAX_COST : maxCost;
        counting = counting == null ? Rule.DEFAULT_COUNTING : counting;
    }

    /** The fields of a rule counted inline, the default. */
    public RuleFields(String id, String domain, Match match, Identity identity, Algorithm algorithm, Integer ratePerS,
                      Integer periodS, Integer burst, Integer limit, Integer windowS, Mode mode, FailMode failMode,
                      Integer maxCost, long version) {
        this(id, domain, match, identity, algorithm, ratePerS, periodS, burst, limit, windowS, mode, failMode, maxCost,
                null, version);
    }

    /** The fields of {@code rule}; only its own algorithm's are set. */
    public static RuleFields of(Rule rule) {
        Integer ratePerS = null;
        Integer periodS = null;
        Integer burst = null;
        Integer limit = null;
        Integer windowS = null;
        if (rule.limit() instanceof Limit.TokenBucket bucket) {
            ratePerS = bucket.ratePerS();
            periodS = bucket.periodS();
            burst = bucket.burst();
        } else if (rule.limit() instanceof Limit.CountPerWindow count) {
            limit = count.limit();
            windowS = count.windowS();
        }
        return new RuleFields(rule.id(), rule.domain(), rule.match(), rule.identity(), rule.algorithm(), ratePerS, periodS,
                burst, limit, windowS, rule.mode(), rule.failMode(), rule.maxCost(), rule.counting(), rule.version());
    }

    /**
     * The fields that {@code algorithm} needs and that are missing, by their wire names: what keeps these
     * fields from being a {@link Rule} at all. Empty when there is an algorithm and all of its fields.
     */
    public List<String> missing() {
        List<String> missing = new ArrayList<>();
        if (algorithm == null) {
            missing.add("algorithm");
        } else if (algorithm == Algorithm.TOKEN_BUCKET) {
            addIfNull(missing, "rate_per_s", ratePerS);
            addIfNull(missing, "period_s", periodS);
            addIfNull(missing, "burst", burst);
        } else {
            addIfNull(missing, "limit", limit);
            addIfNull(missing, "window_s", windowS);
        }
        return missing;
    }

    /** The fields set that {@code algorithm} does not take, by their wire names: a token bucket has no {@code limit}. */
    public List<String> foreign() {
        List<String> foreign = new ArrayList<>();
        if (algorithm == Algorithm.TOKEN_BUCKET) {
            addIfSet(foreign, "limit", limit);
            addIfSet(foreign, "window_s", windowS);
        } else if (algorithm != null) {
            addIfSet(foreign, "rate_per_s", ratePerS);
            addIfSet(foreign, "period_s", periodS);
            addIfSet(foreign, "burst", burst);
        }
        return foreign;
    }

    /**
     * The rule these fields describe. The fields of another algorithm are left behind: a pod reading a
     * snapshot tolerates them, as it tolerates a field it does not know (rules-service refuses them on
     * the way in). Whether the numbers can be enforced is the validator's question, not this one's.
     *
     * @throws IllegalArgumentException when the algorithm or one of its fields is missing
     */
    public Rule toRule() {
        List<String> missing = missing();
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("rule " + id + " lacks " + String.join(", ", missing)
                    + (algorithm == null ? "" : ", which " + algorithm.name().toLowerCase() + " needs"));
        }
        Limit of = switch (algorithm) {
            case TOKEN_BUCKET -> new Limit.TokenBucket(ratePerS, periodS, burst);
            case SLIDING_LOG -> new Limit.SlidingLog(limit, windowS);
            case FIXED_WINDOW -> new Limit.FixedWindow(limit, windowS);
        };
        return new Rule(id, domain, match, identity, of, mode, failMode, maxCost, counting, version);
    }

    private static void addIfNull(List<String> names, String name, Integer value) {
        if (value == null) {
            names.add(name);
        }
    }

    private static void addIfSet(List<String> names, String name, Integer value) {
        if (value != null) {
            names.add(name);
        }
    }

    /**
     * Leaves {@code counting} out of the JSON at its default: every rule written before the field existed (the
     * snapshot, the history, an ETag's body) keeps its bytes, and only a count-after rule says so.
     */
    static final class InlineCounting {

        @Override
        public boolean equals(Object value) {
            return value == null || value == Counting.INLINE;
        }

        @Override
        public int hashCode() {
            return 0;
        }
    }
}
