package dev.tollgate.limiter.check;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckProblem;
import dev.tollgate.common.check.EntryResult;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.rules.RuleBook;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A request's entries grouped by key and mode, one script call per group; the entries whose rule is unknown are
 * answered here, and summed costs above a rule's {@code max_cost} are the request's problems.
 *
 * @param results per entry, its answer when it was answered here (an unknown rule), else null until its group answers
 */
record Grouping(List<KeyGroup> groups, EntryResult[] results, List<CheckProblem> problems) {

    static Grouping of(String domain, List<CheckEntry> entries, RuleBook view, LimiterMetrics metrics) {
        EntryResult[] results = new EntryResult[entries.size()];
        Map<KeyGroup.Id, KeyGroup> groups = new LinkedHashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            CheckEntry entry = entries.get(i);
            Rule rule = view.find(domain, entry.rule(), entry.key());
            if (rule == null) {
                results[i] = EntryResult.unknown(entry.rule());
                metrics.unknownRule();
                continue;
            }
            KeyGroup.Id id = new KeyGroup.Id(entry.key(), rule.shadow());
            groups.computeIfAbsent(id, KeyGroup::new).add(rule, view.share(rule, entry.key()), entry.costValue(), i);
        }
        return new Grouping(List.copyOf(groups.values()), results, costProblems(groups.values()));
    }

    /** Entries naming one rule for one key are one spend: their summed cost is bounded by the rule's max_cost too. */
    private static List<CheckProblem> costProblems(Iterable<KeyGroup> groups) {
        List<CheckProblem> problems = new ArrayList<>();
        for (KeyGroup group : groups) {
            for (int i = 0; i < group.size(); i++) {
                Rule rule = group.rule(i);
                if (group.cost(i) > rule.maxCost()) {
                    List<Integer> named = group.entryIndexes(i);
                    problems.add(new CheckProblem(named, "cost", named.size() == 1
                            ? "is above the largest cost rule " + rule.id() + " allows (" + rule.maxCost() + ")"
                            : "adds up, with the other entries naming rule " + rule.id() + " for this key, to "
                              + group.cost(i) + ", above the largest cost the rule allows (" + rule.maxCost() + ")"));
                }
            }
        }
        return problems;
    }
}
