package dev.tollgate.common.check;

import java.math.BigDecimal;

/**
 * One limit a request touches. {@code cost} arrives as any JSON number so that {@code 1.5} is refused
 * as "not an integer" instead of being silently truncated to 1; {@code null} means 1.
 */
public record CheckEntry(String rule, String key, BigDecimal cost) {

    public static CheckEntry of(String rule, String key, long cost) {
        return new CheckEntry(rule, key, BigDecimal.valueOf(cost));
    }

    /** The validated cost; call after {@link CheckRequestValidator} accepted the request. */
    public int costValue() {
        return cost == null ? 1 : cost.intValueExact();
    }
}
