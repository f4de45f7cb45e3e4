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
import dev.tollgate.rules.problem.CanaryPendingException;
import dev.tollgate.rules.problem.InvalidRuleException;
import dev.tollgate.rules.problem.NoCanaryException;
import dev.tollgate.rules.problem.NotFoundException;
import dev.tollgate.rules.problem.VersionConflictException;
import org.springframework.stereotype.Component;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Reads and writes rules. A write is validated before it touches the store, then runs in one
 * transaction ({@link VersionedWrites}): the store lock, the {@code If-Match} check against the stored
 * version, the row, its history and the revision bump, so it either all lands or none of it does.
 *
 * <p>A change can also be rolled out as a canary ({@link #putCanary}): the canary pods enforce it instead of the
 * rule until it is promoted (it becomes the rule) or rolled back. While a rule has a canary it changes by those
 * two only: any other change is refused (409 {@code canary_pending}), so the canary stays the next version of the
 * rule every other pod enforces, and a version names one body.
 */
@Component
public class RuleCatalog {

    private final RuleRepository rules;
    private final CanaryRepository canaries;
    private final OverrideRepository overrides;
    private final DescriptorRepository descriptors;
    private final ChangeLog changes;
    private final VersionedWrites writes;
    private final Versioned<Rule> versioned;
    private final RuleValidator validator;
    private final Clock clock;

    RuleCatalog(RuleRepository rules, CanaryRepository canaries, OverrideRepository overrides, DescriptorRepository descriptors,
                ChangeLog changes, VersionedWrites writes, Clock clock) {
        this.rules = rules;
        this.canaries = canaries;
        this.descriptors = descriptors;
        this.overrides = overrides;
        this.changes = changes;
        this.writes = writes;
        this.versioned = new Versioned<>(rules, RuleCatalog::subject, false, RuleCatalog::notFound,
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
            refuseWhileCanary(existing.id(), "replaced");
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
            refuseWhileCanary(ruleId, "deleted");
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
        return writes.locked(() -> {
            refuseWhileCanary(ruleId, "switched to " + mode.name().toLowerCase(Locale.ROOT));
            return writes.edit(versioned, ruleId, ifMatch, rule -> rule.withMode(mode), RuleChange::modeSwitched, actor, reason);
        });
    }

    /** The rule's canary; 404 {@code not_found} without the rule, {@code no_canary} without a canary. */
    public RuleCanary canary(String ruleId) {
        return findCanary(ruleId).orElseThrow(() -> {
            rules.find(ruleId).orElseThrow(() -> notFound(ruleId));
            return noCanary(ruleId);
        });
    }

    /** The rule's canary, if it has one. */
    public Optional<RuleCanary> findCanary(String ruleId) {
        requireIdShape(ruleId);
        return canaries.find(ruleId);
    }

    /**
     * Writes {@code written} as the rule's canary instead of the rule: judged as a replacement of the rule is, with
     * the rule's current version in {@code If-Match}, and at a version above any the rule has had. The rule stays as
     * it is for every pod but the canary pods.
     */
    public RuleCanary putCanary(RuleFields written, IfMatch ifMatch, String actor, String reason) {
        List<Violation> violations = new ArrayList<>(validator.validate(written));
        violations.addAll(validator.validateReason(reason));
        if (!violations.isEmpty()) {
            throw new InvalidRuleException(violations);
        }
        Rule candidate = written.toRule();
        return writes.locked(() -> {
            Rule existing = rules.find(candidate.id()).orElseThrow(() -> new NotFoundException("No rule " + candidate.id()
                    + ": a canary is the next version of a rule; create the rule first (PUT /v1/rules/" + candidate.id() + ")."));
            ifMatch.require(subject(existing.id()), existing.version());
            refuseWhileCanary(existing.id(), "given another canary");
            if (candidate.sameLimitAs(existing)) {
                throw InvalidRuleException.of("rule", "is the rule as it is (version " + existing.version() + "): a canary must change something");
            }
            if (!existing.domain().equals(candidate.domain())) {
                // a domain is what a check and a descriptor mapping name: the canary pods would answer for another
                throw InvalidRuleException.of("domain", "is " + existing.domain() + " for rule " + existing.id()
                        + ", and a canary keeps its rule's domain; change the domain by replacing the rule");
            }
            checkOverridesStillFit(candidate);
            Rule canary = candidate.withVersion(canaries.nextVersion(existing.id(), existing.version()));
            canaries.insert(canary, existing.version());
            changes.record(RuleChange.canaryWritten(existing, canary, actor, reason));
            return canaries.find(existing.id()).orElseThrow();
        });
    }

    /** Makes the canary the rule, for every pod, at the canary's version; {@code If-Match} names the canary's version. */
    public Rule promote(String ruleId, IfMatch ifMatch, String actor, String reason) {
        requireIdShape(ruleId);
        requireReason(reason);
        return writes.locked(() -> {
            Rule rule = rules.find(ruleId).orElseThrow(() -> notFound(ruleId));
            RuleCanary canary = pendingCanary(rule, ifMatch);
            if (canary.baseVersion() != rule.version()) {
                // only a writer without the API (psql) can have moved the rule under its canary, which is then not its next version
                throw new VersionConflictException("Rule " + ruleId + " is at version " + rule.version() + ", and its canary was written"
                        + " against version " + canary.baseVersion() + ": roll the canary back and write it again.", rule.version());
            }
            rules.update(canary.rule(), rule.version());
            canaries.delete(ruleId);
            changes.record(RuleChange.promoted(rule, canary.rule(), actor, reason));
            return canary.rule();
        });
    }

    /** Drops the canary: the canary pods enforce the rule again; {@code If-Match} names the canary's version. */
    public Rule rollback(String ruleId, IfMatch ifMatch, String actor, String reason) {
        requireIdShape(ruleId);
        requireReason(reason);
        return writes.locked(() -> {
            Rule rule = rules.find(ruleId).orElseThrow(() -> notFound(ruleId));
            RuleCanary canary = pendingCanary(rule, ifMatch);
            canaries.delete(ruleId);
            changes.record(RuleChange.rolledBack(canary.rule(), rule, actor, reason));
            return rule;
        });
    }

    /** The rule's canary, at the version {@code If-Match} names (428 without one, 409 at another). */
    private RuleCanary pendingCanary(Rule rule, IfMatch ifMatch) {
        RuleCanary canary = canaries.find(rule.id()).orElseThrow(() -> noCanary(rule.id()));
        ifMatch.require("the canary of rule " + rule.id(), canary.version());
        return canary;
    }

    private void refuseWhileCanary(String ruleId, String what) {
        canaries.find(ruleId).ifPresent(canary -> {
            throw new CanaryPendingException("Rule " + ruleId + " has a canary (version " + canary.version() + ") and cannot be " + what
                    + " until it is promoted or rolled back (POST /v1/rules/" + ruleId + ":promote or :rollback).");
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

    private static String subject(String ruleId) {
        return "rule " + ruleId;
    }

    private static NoCanaryException noCanary(String ruleId) {
        return new NoCanaryException("Rule " + ruleId + " has no canary.");
    }

    private static NotFoundException notFound(String ruleId) {
        return new NotFoundException("No rule " + ruleId + ".");
    }
}
