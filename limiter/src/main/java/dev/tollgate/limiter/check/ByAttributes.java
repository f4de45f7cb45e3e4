package dev.tollgate.limiter.check;

import dev.tollgate.common.check.Attributes;
import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckProblem;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.rules.RuleBook;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A check by attributes as the check by entries it stands for: one entry per rule the index finds for the
 * request's plan and route, keyed by the attribute its identity names, at the request's cost. From here on the
 * check is spent exactly as if the caller had named those rules and keys.
 *
 * @param problems an identity attribute a found rule needs and the request lacks; empty when it can be checked
 */
record ByAttributes(CheckRequest request, List<CheckProblem> problems) {

    static ByAttributes of(CheckRequest request, RuleBook view) {
        Map<String, String> attributes = request.attributes();
        List<Rule> rules = view.index().matching(request.domain(), attributes.get(Attributes.PLAN), attributes.get(Attributes.ROUTE));
        BigDecimal cost = request.cost() == null ? BigDecimal.ONE : request.cost();
        List<CheckEntry> entries = new ArrayList<>(rules.size());
        List<CheckProblem> problems = new ArrayList<>();
        for (Rule rule : rules) {
            String identity = Attributes.of(rule.identity());
            String key = attributes.get(identity);
            if (key == null) {
                problems.add(CheckProblem.ofRequest("attributes." + identity, "is required: rule " + rule.id()
                        + " applies to this plan and route and is keyed by it"));
                continue;
            }
            entries.add(new CheckEntry(rule.id(), key, cost));
        }
        return new ByAttributes(new CheckRequest(request.domain(), entries), List.copyOf(problems));
    }
}
