package dev.tollgate.rules.override;

import dev.tollgate.common.rule.AccountOverride;

import java.time.Instant;

/** The body of {@code POST /v1/overrides}. Numbers are boxed so that a missing one is reported, not read as 0. */
public record OverrideRequest(
        String accountId,
        String ruleId,
        Integer ratePerS,
        Integer burst,
        Instant expiresAt,
        String reason) {

    AccountOverride toOverride() {
        return new AccountOverride(accountId, ruleId, ratePerS == null ? 0 : ratePerS, burst == null ? 0 : burst, expiresAt, reason);
    }
}
