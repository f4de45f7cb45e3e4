package dev.tollgate.rules.problem;

import dev.tollgate.common.validation.Violation;

import java.util.List;

/** 422 {@code invalid_rule}: refused before anything was stored; each violation names a field to change. */
public final class InvalidRuleException extends RuntimeException {

    private final List<Violation> violations;

    public InvalidRuleException(List<Violation> violations) {
        super(violations.isEmpty() ? "invalid rule" : violations.get(0).toString(), null, false, false);
        this.violations = List.copyOf(violations);
    }

    public static InvalidRuleException of(String field, String message) {
        return new InvalidRuleException(List.of(new Violation(field, message)));
    }

    public List<Violation> violations() {
        return violations;
    }
}
