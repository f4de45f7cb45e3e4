package dev.tollgate.limiter.rules;

import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.validation.RuleValidator;
import dev.tollgate.common.validation.Violation;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A fixed set of rules, such as a pod's static rules file. Refuses to start with a rule that fails validation. */
public final class StaticRuleBook implements RuleBook {

    private final Map<String, Rule> rules;
    private final RuleIndex index;

    public StaticRuleBook(Collection<Rule> rules) {
        RuleValidator validator = new RuleValidator();
        Map<String, Rule> byId = new HashMap<>();
        for (Rule rule : rules) {
            List<Violation> violations = validator.validate(rule);
            if (!violations.isEmpty()) {
                throw new IllegalArgumentException("rule " + rule.id() + " is invalid: " + violations);
            }
            // a rule's counters are named by its id alone (rl:{key}:<rule>), so one id in two domains would
            // share one bucket: refused, as rules-service refuses it for snapshots
            for (Rule other : byId.values()) {
                if (other.id().equals(rule.id())) {
                    throw new IllegalArgumentException("rule " + rule.id() + " is defined twice (domains " + other.domain()
                            + " and " + rule.domain() + "); rule ids must be unique across domains");
                }
            }
            byId.put(id(rule.domain(), rule.id()), rule);
        }
        this.rules = Map.copyOf(byId);
        this.index = new RuleIndex(this.rules.values());
    }

    @Override
    public RuleIndex index() {
        return index;
    }

    @Override
    public Rule find(String domain, String ruleId, String key) {
        return rules.get(id(domain, ruleId));
    }

    public Collection<Rule> rules() {
        return rules.values();
    }

    private static String id(String domain, String ruleId) {
        return domain + '\u0000' + ruleId;
    }
}
