package dev.tollgate.common.rule;

/**
 * Which requests a rule is meant for. {@code null} or {@code "*"} matches any; a rule that matches every
 * plan and every route is refused by the validator, because one bad number there denies everyone.
 */
public record Match(String plan, String route) {

    public static final String ANY = "*";

    public boolean coversEveryPlan() {
        return plan == null || plan.isBlank() || ANY.equals(plan);
    }

    public boolean coversEveryRoute() {
        return route == null || route.isBlank() || ANY.equals(route);
    }
}
