package dev.tollgate.common.rule;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * One account's own rate and burst for one token-bucket rule, usually for a launch week: it applies
 * until {@code expiresAt} (never, when null) and stops applying at that instant with no job needed.
 *
 * <p>The expiry is kept to the microsecond, as PostgreSQL stores it: an override written with a
 * {@code Instant.now()}-made expiry is the override read back, and a file's override compares equal
 * to the stored one rather than showing a change on every apply.
 */
public record AccountOverride(
        String accountId,
        String ruleId,
        int ratePerS,
        int burst,
        Instant expiresAt,
        String reason) {

    public AccountOverride {
        expiresAt = expiresAt == null ? null : expiresAt.truncatedTo(ChronoUnit.MICROS);
    }

    public boolean activeAt(Instant now) {
        return expiresAt == null || now.isBefore(expiresAt);
    }
}
