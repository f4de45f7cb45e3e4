package dev.tollgate.common.validation;

import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.rule.Algorithm;
import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Counting;
import dev.tollgate.common.rule.RegionBudget;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleFields;
import dev.tollgate.common.rule.RuleSnapshot;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Decides whether a rule or an override can be enforced without hurting anyone. Bounds keep every
 * product of the Lua arithmetic (milli-tokens times milliseconds) exact in a double, below 2^53.
 */
public final class RuleValidator {

    /** Rule ids end up in Redis key names after the hash tag: keep them to characters that need no escaping. */
    static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    static final int MAX_RATE = 10_000_000;
    static final int MAX_BURST = 100_000_000;
    static final int MAX_PERIOD_S = 86_400;
    /** envoyproxy/ratelimit's longest unit, its YEAR of 365 days, so that every one of its limits can be imported. */
    static final int MAX_WINDOW_S = 365 * 86_400;
    /** burst × period_s at most this keeps milli-tokens × milliseconds below 10^15 in the script. */
    static final long MAX_BURST_TIMES_PERIOD = 1_000_000_000L;
    /**
     * A sliding log keeps one zset member per admitted unit and its script adds them one ZADD at a time
     *: a limit of 10^6 would let one call block a primary for seconds. Logins need 5 or 20.
     */
    static final int MAX_SLIDING_LOG_LIMIT = 10_000;
    static final int MAX_SLIDING_LOG_COST = 100;
    /** Text caps: every pod holds every rule and override in memory and ships them in each snapshot. */
    public static final int MAX_DOMAIN = 128;
    public static final int MAX_MATCH = 256;
    /** An override's account is the key of a check entry, so the same byte bound applies. */
    public static final int MAX_ACCOUNT_BYTES = 256;
    public static final int MAX_REASON = 1000;
    /** The latest expiry an override may have: PostgreSQL stores microseconds, and a year past 9999 is a typo. */
    public static final Instant LATEST_EXPIRY = Instant.parse("9999-12-31T23:59:59.999999Z");

    /** Whether {@code id} could name a rule at all: a look-up of anything else can answer "no such rule" at once. */
    public static boolean isRuleId(String id) {
        return id != null && ID.matcher(id).matches();
    }

    /** Whether {@code accountId} could be an override's account: a look-up of anything else finds nothing. */
    public static boolean isAccountId(String accountId) {
        return accountProblem(accountId) == null;
    }

    private static String accountProblem(String account) {
        if (account == null || account.isBlank()) {
            return "is required";
        }
        if (account.length() > MAX_ACCOUNT_BYTES || account.getBytes(StandardCharsets.UTF_8).length > MAX_ACCOUNT_BYTES) {
            return "must be at most " + MAX_ACCOUNT_BYTES + " bytes in UTF-8, as a check's key is";
        }
        if (Text.hasControlCharacter(account)) {
            return "must not contain control characters";
        }
        if (Text.hasLoneSurrogate(account)) {
            return "must be valid UTF-8 (it holds a lone surrogate)";
        }
        return null;
    }

    /** Whether {@code value} is text a rule field could hold: a filter on anything else matches nothing stored. */
    public static boolean isStorableText(String value, int maxLength) {
        return value.length() <= maxLength && !Text.hasControlCharacter(value) && !Text.hasLoneSurrogate(value);
    }

    /** Checks a rule a pod holds: the bounds of its numbers, its id, domain and match. */
    public List<Violation> validate(Rule rule) {
        return validate(rule.fields());
    }

    /**
     * Checks a rule as it was written (the rules API's body, a rules file): besides what
     * {@link #validate(Rule)} checks, an algorithm with a field missing, and a field of another
     * algorithm, which would do nothing and most likely means the author meant another algorithm.
     * A rule these fields make ({@link RuleFields#toRule()}) needs no second check.
     */
    public List<Violation> validate(RuleFields rule) {
        List<Violation> violations = new ArrayList<>();
        if (rule.id() == null || !ID.matcher(rule.id()).matches()) {
            violations.add(new Violation("id", "must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"));
        }
        if (rule.domain() == null || rule.domain().isBlank()) {
            violations.add(new Violation("domain", "is required"));
        } else {
            checkText("domain", rule.domain(), MAX_DOMAIN, violations);
        }
        if (rule.match().plan() != null) {
            checkText("match.plan", rule.match().plan(), MAX_MATCH, violations);
        }
        if (rule.match().route() != null) {
            checkText("match.route", rule.match().route(), MAX_MATCH, violations);
        }
        if (rule.match().coversEveryPlan() && rule.match().coversEveryRoute()) {
            violations.add(new Violation("match", "covers every plan and every route; name a plan or a route so one bad number cannot deny everyone"));
        }
        if (rule.maxCost() < 1) {
            violations.add(new Violation("max_cost", "must be at least 1"));
        }
        if (rule.algorithm() == null) {
            violations.add(new Violation("algorithm", "is required: token_bucket, sliding_log or fixed_window"));
            return violations;
        }
        if (rule.algorithm() == Algorithm.TOKEN_BUCKET) {
            checkTokenBucket(rule, violations);
        } else {
            checkCountPerWindow(rule, violations);
        }
        if (rule.counting() == Counting.AFTER && rule.algorithm() == Algorithm.SLIDING_LOG) {
            // a log's every admitted event is a member the script writes, and its rules are the ones that must not run
            // over (login attempts): counting them after admitting would let a guesser through by the bound
            violations.add(new Violation("counting", "after is for token_bucket and fixed_window rules, whose keys may run a"
                    + " little over; a sliding_log (login attempts) counts before it admits: leave counting out or set it to inline"));
        }
        String algorithm = rule.algorithm().name().toLowerCase();
        String takes = rule.algorithm() == Algorithm.TOKEN_BUCKET ? "rate_per_s, period_s and burst" : "limit and window_s";
        for (String field : rule.foreign()) {
            violations.add(new Violation(field, "is not a field of " + algorithm + ", which takes " + takes
                    + "; leave it out, or name the algorithm it belongs to"));
        }
        return violations;
    }

    /**
     * Checks a whole snapshot as a pod receives it: every rule, every override against its rule, every
     * region share, every descriptor mapping. A pod applies a snapshot only when this finds nothing, and
     * keeps its last good one otherwise, so a rule that slipped past rules-service is still never enforced.
     */
    public List<Violation> validate(RuleSnapshot snapshot) {
        List<Violation> violations = new ArrayList<>();
        Map<String, Rule> byId = new HashMap<>();
        for (Rule rule : snapshot.rules()) {
            for (Violation v : validate(rule)) {
                violations.add(new Violation("rules[" + rule.id() + "]." + v.field(), v.message()));
            }
            if (byId.put(rule.id(), rule) != null) {
                violations.add(new Violation("rules[" + rule.id() + "]", "appears twice"));
            }
        }
        for (AccountOverride override : snapshot.overrides()) {
            for (Violation v : validate(override, byId.get(override.ruleId()))) {
                violations.add(new Violation("overrides[" + override.accountId() + "/" + override.ruleId() + "]." + v.field(), v.message()));
            }
        }
        for (RegionBudget budget : snapshot.regionBudgets()) {
            if (!(budget.share() > 0 && budget.share() <= 1)) {
                violations.add(new Violation("region_budgets[" + budget.ruleId() + "/" + budget.limitKey() + "/" + budget.region() + "].share",
                        "must be in (0, 1], was " + budget.share()));
            }
        }
        DescriptorValidator descriptors = new DescriptorValidator();
        Map<String, DescriptorDomain> domains = new HashMap<>();
        for (DescriptorDomain mapping : snapshot.descriptorDomains()) {
            for (Violation v : descriptors.validate(mapping, byId)) {
                violations.add(new Violation("descriptor_domains[" + mapping.domain() + "]." + v.field(), v.message()));
            }
            if (domains.put(mapping.domain(), mapping) != null) {
                violations.add(new Violation("descriptor_domains[" + mapping.domain() + "]", "appears twice"));
            }
        }
        return violations;
    }

    /** Checks an override against the rule it changes; {@code rule} is null when no such rule exists. */
    public List<Violation> validate(AccountOverride override, Rule rule) {
        List<Violation> violations = new ArrayList<>();
        String accountProblem = accountProblem(override.accountId());
        if (accountProblem != null) {
            violations.add(new Violation("account_id", accountProblem));
        }
        if (rule == null) {
            // quoted only when it could be an id at all: the text is the caller's and may be anything
            String named = isRuleId(override.ruleId()) ? ": " + override.ruleId() : "";
            violations.add(new Violation("rule_id", "names no rule" + named));
            return violations;
        }
        if (rule.algorithm() != Algorithm.TOKEN_BUCKET) {
            violations.add(new Violation("rule_id", "overrides apply to token_bucket rules; " + rule.id() + " is " + rule.algorithm().name().toLowerCase()));
        }
        checkRate("rate_per_s", override.ratePerS(), violations);
        checkBurst(override.burst(), rule.maxCost(), violations);
        return violations;
    }

    /**
     * What an override as written must hold before {@link #validate(AccountOverride, Rule)} can judge it: the
     * fields it takes as ints present, a rule id that could name a rule (checked before the rule is looked up:
     * no rule has another, and PostgreSQL refuses a NUL), and an expiry that is still to come, or the override
     * would be stored and never apply, and that PostgreSQL can store (its timestamptz ends in year 294276, Java's
     * Instant much later). An expiry finer than a microsecond is not refused: the override keeps it to the microsecond.
     */
    public List<Violation> validateWritten(String accountId, String ruleId, Integer ratePerS, Integer burst, Instant expiresAt,
                                           Instant now) {
        List<Violation> violations = new ArrayList<>();
        if (ruleId == null || ruleId.isBlank()) {
            violations.add(new Violation("rule_id", "is required"));
        } else if (!isRuleId(ruleId)) {
            violations.add(new Violation("rule_id", "names no rule"));
        }
        if (accountId == null || accountId.isBlank()) {
            violations.add(new Violation("account_id", "is required"));
        }
        if (ratePerS == null) {
            violations.add(new Violation("rate_per_s", "is required"));
        }
        if (burst == null) {
            violations.add(new Violation("burst", "is required"));
        }
        if (expiresAt != null && !expiresAt.isAfter(now)) {
            violations.add(new Violation("expires_at", "is not in the future (" + expiresAt + "): the override would never apply"));
        } else if (expiresAt != null && expiresAt.isAfter(LATEST_EXPIRY)) {
            violations.add(new Violation("expires_at", "must be before the year 10000; leave it out for an override that never expires"));
        }
        return violations;
    }

    /**
     * The reason recorded with a change, in the history: a person's text, so line breaks are fine, but
     * it is capped and may not hold other control characters. {@code null} (no reason) is fine.
     */
    public List<Violation> validateReason(String reason) {
        if (reason == null) {
            return List.of();
        }
        if (reason.length() > MAX_REASON) {
            return List.of(new Violation("reason", "must be at most " + MAX_REASON + " characters"));
        }
        if (Text.hasControlCharacterOtherThanLineBreakOrTab(reason)) {
            return List.of(new Violation("reason", "must not contain control characters other than line breaks and tabs"));
        }
        if (Text.hasLoneSurrogate(reason)) {
            return List.of(new Violation("reason", "must be valid UTF-8 (it holds a lone surrogate)"));
        }
        return List.of();
    }

    private static void checkText(String field, String value, int max, List<Violation> violations) {
        if (value.length() > max) {
            violations.add(new Violation(field, "must be at most " + max + " characters"));
        } else if (Text.hasControlCharacter(value)) {
            violations.add(new Violation(field, "must not contain control characters"));
        } else if (Text.hasLoneSurrogate(value)) {
            violations.add(new Violation(field, "must be valid UTF-8 (it holds a lone surrogate)"));
        }
    }

    private static void checkTokenBucket(RuleFields rule, List<Violation> violations) {
        if (rule.ratePerS() == null) {
            violations.add(new Violation("rate_per_s", "is required for token_bucket"));
        } else {
            checkRate("rate_per_s", rule.ratePerS(), violations);
        }
        if (rule.burst() == null) {
            violations.add(new Violation("burst", "is required for token_bucket"));
        } else {
            checkBurst(rule.burst(), rule.maxCost(), violations);
        }
        if (rule.periodS() == null || rule.periodS() < 1 || rule.periodS() > MAX_PERIOD_S) {
            violations.add(new Violation("period_s", "must be between 1 and " + MAX_PERIOD_S + " seconds"));
        } else if (rule.burst() != null && (long) rule.burst() * rule.periodS() > MAX_BURST_TIMES_PERIOD) {
            violations.add(new Violation("burst", "times period_s must be at most " + MAX_BURST_TIMES_PERIOD
                    + " (a bucket that takes longer than that to fill is better expressed as a fixed_window quota)"));
        }
    }

    private static void checkCountPerWindow(RuleFields rule, List<Violation> violations) {
        String algorithm = rule.algorithm().name().toLowerCase();
        if (rule.limit() == null) {
            violations.add(new Violation("limit", "is required for " + algorithm));
        } else if (rule.limit() <= 0) {
            violations.add(new Violation("limit", "must be greater than 0, was " + rule.limit()));
        } else if (rule.algorithm() == Algorithm.SLIDING_LOG && rule.limit() > MAX_SLIDING_LOG_LIMIT) {
            violations.add(new Violation("limit", "must be at most " + MAX_SLIDING_LOG_LIMIT + " for sliding_log: the log keeps one"
                    + " entry per admitted unit, so a larger one belongs in a fixed_window or token_bucket rule"));
        } else if (rule.limit() > MAX_BURST) {
            violations.add(new Violation("limit", "must be at most " + MAX_BURST));
        } else if (rule.limit() < rule.maxCost()) {
            violations.add(new Violation("limit", "must be at least max_cost (" + rule.maxCost() + "), or no request could ever pass"));
        }
        if (rule.algorithm() == Algorithm.SLIDING_LOG && rule.maxCost() > MAX_SLIDING_LOG_COST) {
            violations.add(new Violation("max_cost", "must be at most " + MAX_SLIDING_LOG_COST + " for sliding_log: the script"
                    + " writes one entry per unit of cost, and a primary runs one script at a time"));
        }
        if (rule.windowS() == null) {
            violations.add(new Violation("window_s", "is required for " + algorithm));
        } else if (rule.windowS() <= 0 || rule.windowS() > MAX_WINDOW_S) {
            violations.add(new Violation("window_s", "must be between 1 and " + MAX_WINDOW_S + " seconds"));
        }
    }

    private static void checkRate(String field, int rate, List<Violation> violations) {
        if (rate <= 0) {
            violations.add(new Violation(field, "must be greater than 0, was " + rate));
        } else if (rate > MAX_RATE) {
            violations.add(new Violation(field, "must be at most " + MAX_RATE));
        }
    }

    private static void checkBurst(int burst, int maxCost, List<Violation> violations) {
        if (burst < 1) {
            violations.add(new Violation("burst", "must be at least 1, was " + burst));
        } else if (burst > MAX_BURST) {
            violations.add(new Violation("burst", "must be at most " + MAX_BURST));
        } else if (burst < maxCost) {
            violations.add(new Violation("burst", "is below the largest cost (" + maxCost + "): such a request could never pass"));
        }
    }
}
