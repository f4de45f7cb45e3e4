package dev.tollgate.rules.problem;

import dev.tollgate.common.validation.Violation;

import java.util.List;

/**
 * 422 {@code invalid_config}: a rules-as-code file refused whole before anything was stored, with every
 * problem it has, each at its path in the file ({@code rules[2].burst}, {@code descriptors[0].rule}).
 */
public final class InvalidConfigException extends RuntimeException {

    private final List<Violation> violations;

    public InvalidConfigException(List<Violation> violations) {
        super(violations.isEmpty() ? "invalid configuration" : violations.get(0).toString(), null, false, false);
        this.violations = List.copyOf(violations);
    }

    public List<Violation> violations() {
        return violations;
    }
}
