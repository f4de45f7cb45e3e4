package dev.tollgate.common.validation;

/** One reason a rule or override is refused, naming the field a person has to change. */
public record Violation(String field, String message) {

    @Override
    public String toString() {
        return field + ": " + message;
    }
}
