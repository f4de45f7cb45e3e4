package dev.tollgate.common.rule;

import java.time.Instant;

/**
 * One account's own rate and burst for one token-bucket rule, usually for a launch week: it applies
 * until {@code expiresAt} (never, when null) and stops applying at that instant with no job needed.
 */
public record AccountOverride(
        String accountId,
        String ruleId,
        int ratePerS,
        int burst,
        Instant expiresAt,
        String reason) {

    public boolean activeAt(Instant now) {
        return expiresAt == null || now.isBefore(expiresAt);
    }
}
