package dev.tollgate.rules.ascode;

import dev.tollgate.common.ascode.DomainConfig;
import dev.tollgate.common.ascode.DomainFile;
import dev.tollgate.common.ascode.DomainFile.Format;
import dev.tollgate.common.ascode.DomainFile.Reading;
import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.validation.RuleValidator;
import dev.tollgate.common.validation.Violation;
import dev.tollgate.rules.ascode.ApplyReport.ObjectChange;
import dev.tollgate.rules.change.IfMatch;
import dev.tollgate.rules.change.VersionedWrites;
import dev.tollgate.rules.descriptor.DescriptorCatalog;
import dev.tollgate.rules.override.OverrideCatalog;
import dev.tollgate.rules.override.OverrideRequest;
import dev.tollgate.rules.problem.BadRequestException;
import dev.tollgate.rules.problem.InvalidConfigException;
import dev.tollgate.rules.rule.RuleCatalog;
import dev.tollgate.rules.rule.RuleRepository;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Makes a domain what its file says, in one transaction under the store lock, every write through the catalog the
 * single-object endpoints use, so each is validated, versioned and recorded in the history with the actor and
 * reason, and pods see the whole apply as one revision. The file is judged whole first (422, nothing written).
 *
 * <p>The writes go in an order in which every step is one the catalogs accept, whatever the file changes:
 * <ol>
 *   <li>overrides the file drops, then overrides it changes whose new numbers fit the rule as stored;</li>
 *   <li>rules created and changed (a changed rule must still fit its overrides: those left are ones it fits);</li>
 *   <li>the mapping replaced, created or deleted: it may name the rules just created, and no longer names the
 *       rules about to go;</li>
 *   <li>rules the file drops (nothing names them now);</li>
 *   <li>overrides created, and changed ones that fit only the rule as changed.</li>
 * </ol>
 * A dry run is the same apply, rolled back ({@link VersionedWrites#rehearsed}), so it answers what the apply would
 * do, refusals included.
 */
@Component
class ConfigApply {

    static final String DEFAULT_REASON = "applied from a rules-as-code file";

    private final DomainStore store;
    private final RuleRepository rules;
    private final RuleCatalog ruleCatalog;
    private final DescriptorCatalog descriptorCatalog;
    private final OverrideCatalog overrideCatalog;
    private final VersionedWrites writes;
    private final JsonMapper json;
    private final Clock clock;
    private final RuleValidator validator = new RuleValidator();

    ConfigApply(DomainStore store, RuleRepository rules, RuleCatalog ruleCatalog, DescriptorCatalog descriptorCatalog,
                OverrideCatalog overrideCatalog, VersionedWrites writes, JsonMapper json, Clock clock) {
        this.store = store;
        this.rules = rules;
        this.ruleCatalog = ruleCatalog;
        this.descriptorCatalog = descriptorCatalog;
        this.overrideCatalog = overrideCatalog;
        this.writes = writes;
        this.json = json;
        this.clock = clock;
    }

    ApplyReport apply(byte[] body, Format format, boolean dryRun, ExpectedDigest expected, String actor, String reason) {
        String why = reason == null || reason.isBlank() ? DEFAULT_REASON : reason;
        DomainConfig file = judged(body, format, validator.validateReason(why));
        Supplier<ApplyReport> write = () -> write(file, dryRun, expected, actor, why);
        return dryRun ? writes.rehearsed(write) : writes.locked(write);
    }

    /**
     * The difference alone, for a reader's token (a pull request's check): the file judged as an apply judges it and
     * compared with one consistent read of the store, taking no lock and writing nothing. What an apply would refuse
     * besides is what the whole-file check cannot see, and that the write order above rules out.
     */
    ApplyReport diff(byte[] body, Format format) {
        DomainConfig file = judged(body, format, List.of());
        refuseRulesOfOtherDomains(file);
        DomainConfig stored = store.snapshot(file.domain()).config();
        return ApplyReport.of(file.domain(), true, DomainFile.digest(stored), DomainFile.digest(file), ConfigDiff.between(stored, file, json));
    }

    /** The file read and judged whole, with {@code alsoRefused} (the reason's problems) listed beside its own. */
    private DomainConfig judged(byte[] body, Format format, List<Violation> alsoRefused) {
        Reading reading = DomainFile.parse(body, format, clock.instant());
        if (reading.unreadable() != null) {
            throw new BadRequestException("The file cannot be read: it " + reading.unreadable() + ".");
        }
        List<Violation> violations = new ArrayList<>(alsoRefused);
        violations.addAll(reading.violations());
        if (!violations.isEmpty()) {
            throw new InvalidConfigException(violations);
        }
        return reading.config();
    }

    private ApplyReport write(DomainConfig file, boolean dryRun, ExpectedDigest expected, String actor, String reason) {
        StoredDomain stored = store.read(file.domain());
        DomainConfig before = stored.config();
        String digestBefore = DomainFile.digest(before);
        expected.check(file.domain(), digestBefore);
        refuseRulesOfOtherDomains(file);
        List<ObjectChange> changes = ConfigDiff.between(before, file, json);

        Map<String, AccountOverride> oldOverrides = ConfigDiff.byKey(before.overrides(), ConfigDiff::key);
        Map<String, AccountOverride> newOverrides = ConfigDiff.byKey(file.overrides(), ConfigDiff::key);
        for (AccountOverride gone : before.overrides()) {
            if (!newOverrides.containsKey(ConfigDiff.key(gone))) {
                overrideCatalog.delete(gone.accountId(), gone.ruleId(), actor, reason);
            }
        }
        List<AccountOverride> afterRules = new ArrayList<>();
        for (AccountOverride override : file.overrides()) {
            AccountOverride old = oldOverrides.get(ConfigDiff.key(override));
            if (override.equals(old)) {
                continue;
            }
            Rule rule = stored.rule(override.ruleId()).orElse(null);
            if (old != null && rule != null && validator.validate(override, rule).isEmpty()) {
                put(override, actor);
            } else {
                afterRules.add(override);
            }
        }
        for (Rule rule : file.rules()) {
            Rule old = stored.rule(rule.id()).orElse(null);
            if (old == null) {
                ruleCatalog.put(rule.fields(), IfMatch.parse(null), actor, reason);
            } else if (!old.withVersion(0).equals(rule)) {
                ruleCatalog.put(rule.fields(), at(old.version()), actor, reason);
            }
        }
        DescriptorDomain mapping = stored.descriptors();
        if (file.descriptors() != null && (mapping == null || !mapping.withVersion(0).equals(file.descriptors()))) {
            descriptorCatalog.put(file.descriptors(), mapping == null ? IfMatch.parse(null) : at(mapping.version()), actor, reason);
        } else if (file.descriptors() == null && mapping != null) {
            descriptorCatalog.delete(file.domain(), at(mapping.version()), actor, reason);
        }
        Set<String> kept = file.rules().stream().map(Rule::id).collect(Collectors.toSet());
        for (Rule old : stored.rules()) {
            if (!kept.contains(old.id())) {
                ruleCatalog.delete(old.id(), at(old.version()), actor, reason);
            }
        }
        afterRules.forEach(override -> put(override, actor));

        String digestAfter = DomainFile.digest(store.read(file.domain()).config());
        return ApplyReport.of(file.domain(), dryRun, digestBefore, digestAfter, changes);
    }

    /**
     * A rule id names one rule in the whole store: a file that lists another domain's rule would move it here, out
     * from under that domain's file and mapping, and the next apply of that domain would move it back.
     */
    private void refuseRulesOfOtherDomains(DomainConfig file) {
        List<Violation> violations = new ArrayList<>();
        for (Rule rule : file.rules()) {
            rules.find(rule.id()).filter(stored -> !stored.domain().equals(file.domain())).ifPresent(stored -> violations.add(
                    new Violation("rules", rule.id() + " is a rule of domain " + stored.domain() + ": delete it from that domain"
                            + " first (apply its file without it), or give this rule another id")));
        }
        if (!violations.isEmpty()) {
            throw new InvalidConfigException(violations);
        }
    }

    /** The override's own reason is what its history records, as for {@code POST /v1/overrides}. */
    private void put(AccountOverride override, String actor) {
        overrideCatalog.put(new OverrideRequest(override.accountId(), override.ruleId(), override.ratePerS(), override.burst(),
                override.expiresAt(), override.reason()), actor);
    }

    /** The version just read under the lock: a write the catalogs take as based on what is stored. */
    private static IfMatch at(long version) {
        return new IfMatch(List.of(version));
    }
}
