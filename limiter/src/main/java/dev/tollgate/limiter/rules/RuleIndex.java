package dev.tollgate.limiter.rules;

import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Which rules apply to a plan and a route: the design's rule cache, built once when the rules change, so a
 * check by attributes is a few map look-ups, never a scan of the rules.
 *
 * <p>Rules found in one place come in the order of their ids. Precedence, for a request of plan P on route R (R normalized by {@link Routes#normalize}):
 * <ol>
 *   <li>every rule of plan P for any route: the account-wide limits;</li>
 *   <li>then the rules of the most specific route pattern that covers R and has a rule for P or for any plan:
 *       the exact route first, then the longest prefix pattern ({@code /v1/labels*}); of that pattern, the rules
 *       of plan P when there are any, else those for any plan.</li>
 * </ol>
 * So a growth account on {@code /v1/labels} spends its account-wide rule and its route's rule, and a rule for
 * one plan on a route takes that plan out of the route's any-plan rule. A rule that covers every plan and
 * every route is refused by the validator and cannot be here.
 */
public final class RuleIndex {

    public static final RuleIndex EMPTY = new RuleIndex(List.of());

    /** The rules of one route pattern: by plan, and those for any plan. */
    private record Pattern(Map<String, List<Rule>> byPlan, List<Rule> anyPlan) {

        List<Rule> forPlan(String plan) {
            List<Rule> own = plan == null ? null : byPlan.get(plan);
            return own != null ? own : anyPlan;
        }
    }

    /** One domain's rules: account-wide by plan, route patterns exact and by prefix, and the prefix lengths held. */
    private record Domain(Map<String, List<Rule>> anyRoute, Map<String, Pattern> exact, Map<String, Pattern> prefixes, int[] prefixLengths) {
    }

    private final Map<String, Domain> domains;

    private RuleIndex(Map<String, Domain> domains) {
        this.domains = domains;
    }

    public RuleIndex(Collection<Rule> rules) {
        this(build(rules));
    }

    /** The rules that apply, in the order of the precedence above; empty when none does. */
    public List<Rule> matching(String domain, String plan, String route) {
        Domain rules = domains.get(domain);
        if (rules == null) {
            return List.of();
        }
        List<Rule> accountWide = plan == null ? List.of() : rules.anyRoute().getOrDefault(plan, List.of());
        List<Rule> routes = route == null ? List.of() : routeRules(rules, Routes.normalize(route), plan);
        if (routes.isEmpty()) {
            return accountWide;
        }
        if (accountWide.isEmpty()) {
            return routes;
        }
        List<Rule> both = new ArrayList<>(accountWide.size() + routes.size());
        both.addAll(accountWide);
        both.addAll(routes);
        return both;
    }

    private static List<Rule> routeRules(Domain rules, String route, String plan) {
        Pattern exact = rules.exact().get(route);
        if (exact != null && !exact.forPlan(plan).isEmpty()) {
            return exact.forPlan(plan);
        }
        int[] lengths = rules.prefixLengths();
        for (int i = lengths.length - 1; i >= 0; i--) {
            if (lengths[i] <= route.length()) {
                Pattern prefix = rules.prefixes().get(route.substring(0, lengths[i]));
                if (prefix != null && !prefix.forPlan(plan).isEmpty()) {
                    return prefix.forPlan(plan);
                }
            }
        }
        return List.of();
    }

    private static Map<String, Domain> build(Collection<Rule> rules) {
        Map<String, Map<String, List<Rule>>> anyRoute = new HashMap<>();
        Map<String, Map<String, Map<String, List<Rule>>>> exact = new HashMap<>();
        Map<String, Map<String, Map<String, List<Rule>>>> prefixes = new HashMap<>();
        // by id within each place, so that a check's entries come in one order on every pod and every revision
        List<Rule> byId = new ArrayList<>(rules);
        byId.sort(java.util.Comparator.comparing(Rule::id));
        for (Rule rule : byId) {
            Match match = rule.match();
            String plan = match.coversEveryPlan() ? null : match.plan();
            if (match.coversEveryRoute()) {
                if (plan != null) {
                    anyRoute.computeIfAbsent(rule.domain(), d -> new HashMap<>()).computeIfAbsent(plan, p -> new ArrayList<>()).add(rule);
                }
                continue;
            }
            String route = match.route();
            boolean prefix = route.endsWith("*");
            String pattern = prefix ? Routes.normalizePrefix(route.substring(0, route.length() - 1)) : Routes.normalize(route);
            (prefix ? prefixes : exact).computeIfAbsent(rule.domain(), d -> new HashMap<>()).computeIfAbsent(pattern, p -> new HashMap<>())
                    .computeIfAbsent(plan == null ? "" : "=" + plan, p -> new ArrayList<>()).add(rule);
        }
        TreeSet<String> names = new TreeSet<>(anyRoute.keySet());
        names.addAll(exact.keySet());
        names.addAll(prefixes.keySet());
        Map<String, Domain> domains = new HashMap<>();
        for (String name : names) {
            Map<String, Pattern> prefixPatterns = patterns(prefixes.getOrDefault(name, Map.of()));
            int[] lengths = prefixPatterns.keySet().stream().mapToInt(String::length).distinct().sorted().toArray();
            domains.put(name, new Domain(frozen(anyRoute.getOrDefault(name, Map.of())), patterns(exact.getOrDefault(name, Map.of())),
                    prefixPatterns, lengths));
        }
        return Map.copyOf(domains);
    }

    private static Map<String, Pattern> patterns(Map<String, Map<String, List<Rule>>> byPattern) {
        Map<String, Pattern> patterns = new HashMap<>();
        byPattern.forEach((pattern, byPlan) -> {
            Map<String, List<Rule>> plans = new HashMap<>();
            byPlan.forEach((plan, list) -> {
                if (!plan.isEmpty()) {
                    plans.put(plan.substring(1), List.copyOf(list));
                }
            });
            patterns.put(pattern, new Pattern(Map.copyOf(plans), List.copyOf(byPlan.getOrDefault("", List.of()))));
        });
        return Map.copyOf(patterns);
    }

    private static Map<String, List<Rule>> frozen(Map<String, List<Rule>> byPlan) {
        Map<String, List<Rule>> frozen = new HashMap<>();
        byPlan.forEach((plan, list) -> frozen.put(plan, List.copyOf(list)));
        return Map.copyOf(frozen);
    }
}
