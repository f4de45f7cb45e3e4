package dev.tollgate.rules.rule;

import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Mode;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleFields;
import dev.tollgate.common.validation.RuleValidator;
import dev.tollgate.common.validation.Violation;
import dev.tollgate.rules.change.ChangeLog;
import dev.tollgate.rules.change.HistoryEntry;
import dev.tollgate.rules.change.OverrideChange;
import dev.tollgate.rules.change.RuleChange;
import dev.tollgate.rules.descriptor.DescriptorRepository;
import dev.tollgate.rules.override.OverrideRepository;
import dev.tollgate.rules.problem.BadRequestException;
import dev.tollgate.rules.problem.InvalidRuleException;
import dev.tollgate.rules.problem.NotFoundException;
import dev.tollgate.rules.problem.VersionConflictException;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionOperations;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads and writes rules. A write is validated before it touches the store, then runs in one
 * transaction: the store lock, the {@code If-Match} check against the stored version, the row, its
 * history and the revision bump, so it either all lands or none of it does.
 */
@Component
public class RuleCatalog {

    private final RuleRepository rules;
    private final OverrideRepository overrides;
    private final DescriptorRepository descriptors;
    private final ChangeLog changes;
    private final RuleValidator validator;
    private final TransactionOperations transactions;
    private final Clock clock;

    RuleCatalog(RuleRepository rules, OverrideRepository overrides, DescriptorRepository descriptors, ChangeLog changes,
                TransactionOperations transactions, Clock clock) {
        this.rules = rules;
        this.descriptors = descriptors;
        this.overrides = overrides;
        this.changes = changes;
        this.validator = new RuleValidator();
        this.transactions = transactions;
        this.clock = clock;
    }

    public record Written(Rule rule, boolean created) {
    }

    public List<Rule> list(String domain) {
        if (domain != null && !RuleValidator.isStorableText(domain, RuleValidator.MAX_DOMAIN)) {
            throw new BadRequestException("domain must be at most " + RuleValidator.MAX_DOMAIN
                    + " characters of valid text without control characters");
        }
        return rules.findAll(domain);
    }

    public Rule get(String ruleId) {
        requireIdShape(ruleId);
        return rules.find(ruleId).orElseThrow(() -> notFound(ruleId));
    }

    public List<HistoryEntry> history(String ruleId) {
        requireIdShape(ruleId);
        List<HistoryEntry> entries = changes.forRule(ruleId);
        if (entries.isEmpty() && rules.find(ruleId).isEmpty()) {
            throw notFound(ruleId);
        }
        return entries;
    }

    /** Creates the rule (no {@code If-Match}) or replaces it (with the current version in {@code If-Match}). */
    public Written put(RuleFields written, IfMatch ifMatch, String actor, String reason) {
        List<Violation> violations = new ArrayList<>(validator.validate(written));
        violations.addAll(validator.validateReason(reason));
        if (!violations.isEmpty()) {
            throw new InvalidRuleException(violations);
        }
        Rule candidate = written.toRule();
        return transactions.execute(tx -> {
            changes.lock();
            Rule existing = rules.find(candidate.id()).orElse(null);
            if (existing == null) {
                if (ifMatch.present()) {
                    throw new VersionConflictException("Rule " + candidate.id() + " does not exist (any more): it was deleted"
                            + " since you read it. Create it again without If-Match.", null);
                }
                Rule created = candidate.withVersion(1);
                rules.insert(created);
                changes.record(RuleChange.created(created, actor, reason));
                return new Written(created, true);
            }
            ifMatch.require(existing.id(), existing.version());
            checkOverridesStillFit(candidate);
            if (!existing.domain().equals(candidate.domain())) {
                refuseWhileMapped(candidate.id(), "domain", "cannot change while");
            }
            if (existing.sameLimitAs(candidate)) {
                return new Written(existing, false);
            }
            Rule replaced = candidate.withVersion(existing.version() + 1);
            rules.update(replaced, existing.version());
            changes.record(RuleChange.replaced(existing, replaced, actor, reason));
            return new Written(replaced, false);
        });
    }

    /** Deletes the rule, and with it its overrides and region budgets; each override's removal is recorded. */
    void delete(String ruleId, IfMatch ifMatch, String actor, String reason) {
        requireIdShape(ruleId);
        requireReason(reason);
        transactions.executeWithoutResult(tx -> {
            changes.lock();
            Rule existing = rules.find(ruleId).orElseThrow(() -> notFound(ruleId));
            ifMatch.require(ruleId, existing.version());
            refuseWhileMapped(ruleId, "id", "cannot be deleted while");
            for (AccountOverride override : overrides.find(null, ruleId, null)) {
                changes.record(OverrideChange.deleted(override, actor, "rule deleted" + (reason == null ? "" : ": " + reason)));
            }
            rules.delete(ruleId);
            changes.record(RuleChange.deleted(existing, actor, reason));
        });
    }

    /**
     * Puts the rule in shadow or enforce mode: a new version, unless it already is in that mode.
     * {@code If-Match} is optional here (switching a mode is safe to repeat) but a stale one is a conflict.
     */
    public Rule setMode(String ruleId, Mode mode, IfMatch ifMatch, String actor, String reason) {
        requireIdShape(ruleId);
        requireReason(reason);
        return transactions.execute(tx -> {
            changes.lock();
            Rule existing = rules.find(ruleId).orElseThrow(() -> notFound(ruleId));
            ifMatch.checkIfPresent(ruleId, existing.version());
            if (existing.mode() == mode) {
                return existing;
            }
            Rule switched = existing.withMode(mode).withVersion(existing.version() + 1);
            rules.update(switched, existing.version());
            changes.record(RuleChange.modeSwitched(existing, switched, actor, reason));
            return switched;
        });
    }

    /**
     * A new rule must still be valid for every active override of it: a larger {@code max_cost} or another
     * algorithm would otherwise leave an override that every pod refuses, and with it the whole snapshot.
     */
    private void checkOverridesStillFit(Rule candidate) {
        List<Violation> violations = new ArrayList<>();
        for (AccountOverride override : overrides.find(null, candidate.id(), clock.instant())) {
            for (Violation violation : validator.validate(override, candidate)) {
                violations.add(new Violation("overrides[" + override.accountId() + "]." + violation.field(),
                        violation.message() + " (delete or change that override first)"));
            }
        }
        if (!violations.isEmpty()) {
            throw new InvalidRuleException(violations);
        }
    }

    /**
     * A rule that a descriptor mapping names must stay, in its domain: every pod would refuse a snapshot whose
     * mapping names a rule it does not hold, and with it every later change.
     */
    private void refuseWhileMapped(String ruleId, String field, String what) {
        List<String> domains = descriptors.findAll().stream().filter(mapping -> mapping.names(ruleId)).map(d -> d.domain()).toList();
        if (!domains.isEmpty()) {
            throw InvalidRuleException.of(field, what + " the descriptors of domain " + String.join(", ", domains)
                    + " name rule " + ruleId + "; change those first (PUT /v1/descriptors/{domain})");
        }
    }

    private void requireReason(String reason) {
        List<Violation> violations = validator.validateReason(reason);
        if (!violations.isEmpty()) {
            throw new InvalidRuleException(violations);
        }
    }

    /** No stored rule has an id outside the id pattern, so such a path is a 404 without asking PostgreSQL (which refuses a NUL). */
    private static void requireIdShape(String ruleId) {
        if (!RuleValidator.isRuleId(ruleId)) {
            throw new NotFoundException("No rule of that id: rule ids are 1-64 letters, digits, '.', '_' or '-'.");
        }
    }

    private static NotFoundException notFound(String ruleId) {
        return new NotFoundException("No rule " + ruleId + ".");
    }
}
