package dev.tollgate.rules.override;

import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.validation.RuleValidator;
import dev.tollgate.common.validation.Violation;
import dev.tollgate.rules.change.ChangeLog;
import dev.tollgate.rules.change.OverrideChange;
import dev.tollgate.rules.change.VersionedWrites;
import dev.tollgate.rules.change.VersionedWrites.Written;
import dev.tollgate.rules.problem.BadRequestException;
import dev.tollgate.rules.problem.InvalidRuleException;
import dev.tollgate.rules.problem.NotFoundException;
import dev.tollgate.rules.rule.CanaryRepository;
import dev.tollgate.rules.rule.RuleRepository;
import org.springframework.stereotype.Component;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes overrides. The shared validator needs the rule the override changes, so validation runs
 * inside the write transaction, under the store lock: the rule cannot change between the check and
 * the write. An override must fit the rule's canary too, which the canary pods enforce in its place.
 */
@Component
public class OverrideCatalog {

    private final RuleRepository rules;
    private final CanaryRepository canaries;
    private final OverrideRepository overrides;
    private final ChangeLog changes;
    private final VersionedWrites writes;
    private final RuleValidator validator;
    private final Clock clock;

    OverrideCatalog(RuleRepository rules, CanaryRepository canaries, OverrideRepository overrides, ChangeLog changes,
                    VersionedWrites writes, Clock clock) {
        this.rules = rules;
        this.canaries = canaries;
        this.overrides = overrides;
        this.changes = changes;
        this.writes = writes;
        this.validator = new RuleValidator();
        this.clock = clock;
    }

    public List<AccountOverride> list(String accountId, String ruleId, boolean includeExpired) {
        if (accountId != null && !RuleValidator.isAccountId(accountId)) {
            throw new BadRequestException("account_id must be at most " + RuleValidator.MAX_ACCOUNT_BYTES
                    + " bytes of valid UTF-8 without control characters");
        }
        if (ruleId != null && !RuleValidator.isRuleId(ruleId)) {
            throw new BadRequestException("rule_id must be 1-64 letters, digits, '.', '_' or '-'");
        }
        return overrides.find(accountId, ruleId, includeExpired ? null : clock.instant());
    }

    /** Creates or replaces the account's override of the rule. */
    public Written<AccountOverride> put(OverrideRequest request, String actor) {
        List<Violation> shape = checkShape(request, clock.instant());
        shape.addAll(validator.validateReason(request.reason()));
        if (!shape.isEmpty()) {
            throw new InvalidRuleException(shape);
        }
        AccountOverride override = request.toOverride();
        return writes.locked(() -> {
            Rule rule = rules.find(override.ruleId()).orElse(null);
            List<Violation> violations = new ArrayList<>(validator.validate(override, rule));
            canaries.find(override.ruleId()).ifPresent(canary -> validator.validate(override, canary.rule()).forEach(violation ->
                    violations.add(new Violation(violation.field(), violation.message() + " (for the rule's canary, version "
                            + canary.version() + ", which the canary pods enforce)"))));
            if (!violations.isEmpty()) {
                throw new InvalidRuleException(violations);
            }
            AccountOverride existing = overrides.find(override.accountId(), override.ruleId()).orElse(null);
            if (override.equals(existing)) {
                return new Written<>(existing, false);
            }
            overrides.upsert(override);
            changes.record(existing == null ? OverrideChange.created(override, actor) : OverrideChange.replaced(existing, override, actor));
            return new Written<>(override, existing == null);
        });
    }

    public void delete(String accountId, String ruleId, String actor, String reason) {
        List<Violation> violations = validator.validateReason(reason);
        if (!violations.isEmpty()) {
            throw new InvalidRuleException(violations);
        }
        // nothing stored has such an account or rule id, and PostgreSQL refuses a NUL in a parameter
        if (!RuleValidator.isAccountId(accountId) || !RuleValidator.isRuleId(ruleId)) {
            throw new NotFoundException("No override of that rule for that account.");
        }
        writes.locked(() -> {
            AccountOverride existing = overrides.find(accountId, ruleId)
                    .orElseThrow(() -> new NotFoundException("No override of rule " + ruleId + " for account " + accountId + "."));
            overrides.delete(accountId, ruleId);
            changes.record(OverrideChange.deleted(existing, actor, reason));
        });
    }

    /** What the validator cannot see: fields left out (it takes ints) and an expiry already past. */
    private List<Violation> checkShape(OverrideRequest request, Instant now) {
        return new ArrayList<>(validator.validateWritten(request.accountId(), request.ruleId(), request.ratePerS(), request.burst(),
                request.expiresAt(), now));
    }

}
