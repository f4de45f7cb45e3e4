package dev.tollgate.rules.console;

import dev.tollgate.common.rule.Algorithm;
import dev.tollgate.common.rule.FailMode;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.rules.problem.InvalidRuleException;

import java.util.Locale;

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
        return new RuleForm(rule.version(), rule.ratePerS(), rule.periodS(), rule.burst(), rule.limit(), rule.windowS(),
                rule.maxCost(), rule.failMode().name().toLowerCase(Locale.ROOT), null);
    }

    /** The same edit, based on another version: after a conflict, to re-apply over the newer one. */
    RuleForm basedOn(long newerVersion) {
        return new RuleForm(newerVersion, ratePerS, periodS, burst, limit, windowS, maxCost, failMode, reason);
    }

    /** {@code stored} with this form's numbers; fields of the other algorithm stay empty, as the validator wants. */
    Rule applyTo(Rule stored) {
        boolean bucket = stored.algorithm() == Algorithm.TOKEN_BUCKET;
        FailMode fail = failMode == null || failMode.isBlank() ? stored.failMode() : parsedFailMode();
        return new Rule(stored.id(), stored.domain(), stored.match(), stored.identity(), stored.algorithm(),
                bucket ? ratePerS : null, bucket ? periodS : null, bucket ? burst : null,
                bucket ? null : limit, bucket ? null : windowS, stored.mode(), fail, maxCost, 0);
    }

    private FailMode parsedFailMode() {
        for (FailMode mode : FailMode.values()) {
            if (mode.name().equalsIgnoreCase(failMode.trim())) {
                return mode;
            }
        }
        throw InvalidRuleException.of("fail_mode", "must be open or closed");
    }

    String ifMatch() {
        return version == null ? null : "\"" + version + "\"";
    }
}
