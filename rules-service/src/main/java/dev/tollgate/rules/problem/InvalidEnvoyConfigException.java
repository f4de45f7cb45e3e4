package dev.tollgate.rules.problem;

import dev.tollgate.common.validation.Violation;

import java.util.List;

/**
 * 422 {@code invalid_envoy_config}: an envoyproxy/ratelimit configuration file refused whole before anything
 * was stored, because it is not YAML or because envoyproxy/ratelimit itself would refuse it; each violation
 * names a field of the file.
 */
public final class InvalidEnvoyConfigException extends RuntimeException {

    private final List<Violation> violations;

    public InvalidEnvoyConfigException(List<Violation> violations) {
        super(violations.isEmpty() ? "invalid configuration" : violations.get(0).toString(), null, false, false);
        this.violations = List.copyOf(violations);
    }

    public static InvalidEnvoyConfigException of(String field, String message) {
        return new InvalidEnvoyConfigException(List.of(new Violation(field, message)));
    }

    public List<Violation> violations() {
        return violations;
    }
}
