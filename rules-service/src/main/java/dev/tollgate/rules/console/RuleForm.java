package dev.tollgate.rules.console;

import dev.tollgate.common.rule.Algorithm;
import dev.tollgate.common.rule.FailMode;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleFields;
import dev.tollgate.common.validation.Violation;
import dev.tollgate.rules.problem.InvalidRuleException;
import org.springframework.validation.BindingResult;

import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The rule edit form: the numbers support changes, the version the editor read, and why. The rule's
 * identity (domain, match, algorithm, mode) is kept from the stored rule: changing what a rule applies
 * to is a new rule, made through the API.
 *
 * @param version the version the page showed; sent as If-Match, so a change made meanwhile is a conflict
 */
record RuleForm(Long version, Integer ratePerS, Integer periodS, Integer burst, Integer limit, Integer windowS,
                Integer maxCost, String failMode, String reason) {

    static RuleForm of(Rule rule) {
        RuleFields fields = RuleFields.of(rule);
        return new RuleForm(rule.version(), fields.ratePerS(), fields.periodS(), fields.burst(), fields.limit(), fields.windowS(),
                rule.maxCost(), rule.failMode().name().toLowerCase(Locale.ROOT), null);
    }

    /** The same edit, based on another version: after a conflict, to re-apply over the newer one. */
    RuleForm basedOn(long newerVersion) {
        return new RuleForm(newerVersion, ratePerS, periodS, burst, limit, windowS, maxCost, failMode, reason);
    }

    /**
     * This edit re-applied on {@code newer}: a field the editor left as it was in {@code base} (the version
     * they read) takes the newer value, a field they changed keeps theirs. So an edit of the burst does not
     * silently revert someone else's new rate.
     */
    RuleForm rebase(RuleForm base, RuleForm newer) {
        return new RuleForm(newer.version,
                pick(ratePerS, base.ratePerS, newer.ratePerS), pick(periodS, base.periodS, newer.periodS),
                pick(burst, base.burst, newer.burst), pick(limit, base.limit, newer.limit),
                pick(windowS, base.windowS, newer.windowS), pick(maxCost, base.maxCost, newer.maxCost),
                pick(failMode, base.failMode, newer.failMode), reason);
    }

    /** The fields both this edit and the newer version changed, differently: the ones to look at before saving again. */
    List<String> clashesWith(RuleForm base, RuleForm newer) {
        List<String> clashes = new ArrayList<>();
        clash("rate_per_s", ratePerS, base.ratePerS, newer.ratePerS, clashes);
        clash("period_s", periodS, base.periodS, newer.periodS, clashes);
        clash("burst", burst, base.burst, newer.burst, clashes);
        clash("limit", limit, base.limit, newer.limit, clashes);
        clash("window_s", windowS, base.windowS, newer.windowS, clashes);
        clash("max_cost", maxCost, base.maxCost, newer.maxCost, clashes);
        clash("fail_mode", failMode, base.failMode, newer.failMode, clashes);
        return clashes;
    }

    /** A version as the history stores it (the wire JSON), in this form's terms. */
    static RuleForm of(JsonNode stored, long version) {
        return new RuleForm(version, integer(stored, "rate_per_s"), integer(stored, "period_s"), integer(stored, "burst"),
                integer(stored, "limit"), integer(stored, "window_s"), integer(stored, "max_cost"),
                stored.hasNonNull("fail_mode") ? stored.get("fail_mode").asString().toLowerCase(Locale.ROOT) : null, null);
    }

    private static <T> T pick(T mine, T base, T newer) {
        return Objects.equals(mine, base) ? newer : mine;
    }

    private static <T> void clash(String field, T mine, T base, T newer, List<String> clashes) {
        if (!Objects.equals(mine, base) && !Objects.equals(newer, base) && !Objects.equals(mine, newer)) {
            clashes.add(field);
        }
    }

    private static Integer integer(JsonNode node, String field) {
        return node.hasNonNull(field) ? node.get(field).asInt() : null;
    }

    /**
     * {@code stored} with this form's numbers, in the flat form the catalog validates field by field; fields
     * of the other algorithm stay empty, as the validator wants, and what the form does not show (mode, counting)
     * stays as stored.
     */
    RuleFields applyTo(Rule stored) {
        boolean bucket = stored.algorithm() == Algorithm.TOKEN_BUCKET;
        FailMode fail = failMode == null || failMode.isBlank() ? stored.failMode() : parsedFailMode();
        return new RuleFields(stored.id(), stored.domain(), stored.match(), stored.identity(), stored.algorithm(),
                bucket ? ratePerS : null, bucket ? periodS : null, bucket ? burst : null,
                bucket ? null : limit, bucket ? null : windowS, stored.mode(), fail, maxCost, stored.counting(), 0);
    }

    private FailMode parsedFailMode() {
        for (FailMode mode : FailMode.values()) {
            if (mode.name().equalsIgnoreCase(failMode.trim())) {
                return mode;
            }
        }
        throw InvalidRuleException.of("fail_mode", "must be open or closed");
    }

    /**
     * A field that is not a number at all (a browser without the form's {@code type=number}, a hand-made request) as the
     * validator's violations name fields, so the page lists it with the rest instead of the API's 400.
     */
    static void requireBound(BindingResult binding) {
        if (binding.hasFieldErrors()) {
            throw new InvalidRuleException(binding.getFieldErrors().stream()
                    .map(error -> new Violation(error.getField().replaceAll("([A-Z])", "_$1").toLowerCase(Locale.ROOT),
                            "must be a whole number, was '" + error.getRejectedValue() + "'"))
                    .toList());
        }
    }

    String ifMatch() {
        return version == null ? null : "\"" + version + "\"";
    }
}
