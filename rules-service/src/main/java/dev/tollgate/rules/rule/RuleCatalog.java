package dev.tollgate.rules.rule;

import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Mode;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleFields;
import dev.tollgate.common.validation.RuleValidator;
import dev.tollgate.common.validation.Violation;
import dev.tollgate.rules.change.ChangeLog;
import dev.tollgate.rules.change.HistoryEntry;
import dev.tollgate.rules.change.IfMatch;
import dev.tollgate.rules.change.OverrideChange;
import dev.tollgate.rules.change.RuleChange;
import dev.tollgate.rules.change.Versioned;
import dev.tollgate.rules.change.VersionedWrites;
import dev.tollgate.rules.change.VersionedWrites.Written;
import dev.tollgate.rules.descriptor.DescriptorRepository;
import dev.tollgate.rules.override.OverrideRepository;
import dev.tollgate.rules.problem.BadRequestException;
import dev.tollgate.rules.problem.InvalidRuleException;
import dev.tollgate.rules.problem.NotFoundException;
import org.springframework.stereotype.Component;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads and writes rules. A write is validated before it touches the store, then runs in one
 * transaction ({@link VersionedWrites}): the store lock, the {@code If-Match} check against the stored
 * version, the row, its history and the revision bump, so it either all lands or none of it does.
 */
@Component
public class RuleCatalog {

    private final RuleRepository rules;
    private final OverrideRepository overrides;
    private final DescriptorRepository descriptors;
    private final ChangeLog changes;
    private final VersionedWrites writes;
    private final Versioned<Rule> versioned;
    private final RuleValidator validator;
    private final Clock clock;

    RuleCatalog(RuleRepository rules, OverrideRepository overrides, DescriptorRepository descriptors, ChangeLog changes,
                VersionedWrites writes, Clock clock) {
        this.rules = rules;
        this.descriptors = descriptors;
        this.overrides = overrides;
        this.changes = changes;
        this.writes = writes;
        this.versioned = new Versioned<>(rules, id -> "rule " + id, false, RuleCatalog::notFound,
                RuleChange::created, RuleChange::replaced, RuleChange::deleted);
        this.validator = new RuleValidator();
        this.clock = clock;
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
    public Written<Rule> put(RuleFields written, IfMatch ifMatch, String actor, String reason) {
        List<Violation> violations = new ArrayList<>(validator.validate(written));
        violations.addAll(validator.validateReason(reason));
        if (!violations.isEmpty()) {
            throw new InvalidRuleException(violations);
        }
        Rule candidate = written.toRule();
        return writes.put(versioned, candidate, ifMatch, existing -> {
            checkOverridesStillFit(candidate);
            if (!existing.domain().equals(candidate.domain())) {
                refuseWhileMapped(candidate.id(), "domain", "cannot change while");
            }
        }, actor, reason);
    }

    /** A proposed version of a rule, judged as a write would judge it (422 {@code invalid_rule}), but not stored. */
    public Rule proposed(RuleFields written) {
        List<Violation> violations = validator.validate(written);
        if (!violations.isEmpty()) {
            throw new InvalidRuleException(violations);
        }
        return written.toRule();
    }

    /** Deletes the rule, and with it its overrides and region budgets; each override's removal is recorded. */
    public void delete(String ruleId, IfMatch ifMatch, String actor, String reason) {
        requireIdShape(ruleId);
        requireReason(reason);
        writes.delete(versioned, ruleId, ifMatch, existing -> {
            refuseWhileMapped(ruleId, "id", "cannot be deleted while");
            for (AccountOverride override : overrides.find(null, ruleId, null)) {
                changes.record(OverrideChange.deleted(override, actor, "rule deleted" + (reason == null ? "" : ": " + reason)));
            }
        }, actor, reason);
    }

    /**
     * Puts the rule in shadow or enforce mode: a new version, unless it already is in that mode.
     * {@code If-Match} is optional here (switching a mode is safe to repeat) but a stale one is a conflict.
     */
    public Rule setMode(String ruleId, Mode mode, IfMatch ifMatch, String actor, String reason) {
        requireIdShape(ruleId);
        requireReason(reason);
        return writes.edit(versioned, ruleId, ifMatch, rule -> rule.withMode(mode), RuleChange::modeSwitched, actor, reason);
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
