package dev.tollgate.rules.rule;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.tollgate.common.rule.CountAfterBound;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleFields;

import java.time.Duration;

/**
 * A rule as the rules API answers it: its fields as stored (what a client sends back with one field changed), and,
 * for a rule that counts after, {@code count_after}: the pods' flush interval and how far one pod may let a key run
 * over the limit (docs/rules.md, "Counting after"). An inline rule's answer is its fields alone, as before.
 */
record RuleAnswer(@JsonUnwrapped RuleFields rule, CountAfterBound countAfter) {

    static RuleAnswer of(Rule rule, Duration flushInterval) {
        return new RuleAnswer(rule.fields(), rule.countsAfter() ? CountAfterBound.of(rule, flushInterval) : null);
    }
}
