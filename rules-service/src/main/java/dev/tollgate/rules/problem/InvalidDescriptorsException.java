package dev.tollgate.rules.problem;

import dev.tollgate.common.validation.Violation;

import java.util.List;

/** 422 {@code invalid_descriptors}: a descriptor mapping refused before anything was stored; each violation names a field. */
public final class InvalidDescriptorsException extends RuntimeException {

    private final List<Violation> violations;

    public InvalidDescriptorsException(List<Violation> violations) {
        super(violations.isEmpty() ? "invalid descriptors" : violations.get(0).toString(), null, false, false);
        this.violations = List.copyOf(violations);
    }

    public List<Violation> violations() {
        return violations;
    }
}
