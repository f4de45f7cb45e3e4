package dev.tollgate.devstack.app;

/** The Spring Boot services the dev stack runs, by the names their modules and properties use. */
public enum Service {
    CHECK_SERVICE("check-service"),
    RULES_SERVICE("rules-service"),
    BUDGET_REBALANCER("budget-rebalancer");

    private final String id;

    Service(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }
}
