package dev.tollgate.rules.rule;

import dev.tollgate.common.rule.Algorithm;
import dev.tollgate.common.rule.Counting;
import dev.tollgate.common.rule.FailMode;
import dev.tollgate.common.rule.Identity;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Mode;
import dev.tollgate.common.rule.RuleFields;

/**
 * The body of {@code PUT /v1/rules/{id}}: a rule as {@code GET} shows it, plus the reason for the
 * change. {@code id} may be left out (the path names the rule) and {@code version} is ignored
 * ({@code If-Match} carries it), so a client can send back what it read with one field changed.
 */
record RuleRequest(
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
        Counting counting,
        Long version,
        String reason) {

    /** The rule as written, to be validated field by field before it becomes a rule. */
    RuleFields toFields(String ruleId) {
        return new RuleFields(ruleId, domain, match, identity, algorithm, ratePerS, periodS, burst, limit, windowS, mode,
                failMode, maxCost, counting, 0);
    }
}
