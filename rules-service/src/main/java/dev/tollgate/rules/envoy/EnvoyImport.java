package dev.tollgate.rules.envoy;

import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.envoy.EnvoyConfig;
import dev.tollgate.common.envoy.EnvoyConfig.Note;
import dev.tollgate.common.envoy.EnvoyConfig.Translation;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.validation.RuleValidator;
import dev.tollgate.common.validation.Violation;
import dev.tollgate.common.wire.PlainTree;
import dev.tollgate.rules.change.IfMatch;
import dev.tollgate.rules.change.VersionedWrites;
import dev.tollgate.rules.change.VersionedWrites.Written;
import dev.tollgate.rules.descriptor.DescriptorCatalog;
import dev.tollgate.rules.descriptor.DescriptorRepository;
import dev.tollgate.rules.envoy.ImportReport.MappingOutcome;
import dev.tollgate.rules.envoy.ImportReport.Outcome;
import dev.tollgate.rules.envoy.ImportReport.RuleOutcome;
import dev.tollgate.rules.problem.ImportConflictException;
import dev.tollgate.rules.problem.InvalidEnvoyConfigException;
import dev.tollgate.rules.rule.RuleCatalog;
import dev.tollgate.rules.rule.RuleRepository;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * Imports one envoyproxy/ratelimit configuration file: its rules and its domain's descriptor mapping, in one
 * transaction under the store lock, through the same catalogs as {@code PUT /v1/rules/{id}} and
 * {@code PUT /v1/descriptors/{domain}}, so each write is validated, versioned and recorded in the history and
 * the watch feed as theirs are.
 *
 * <ul>
 *   <li>A rule is created, or found stored as the file has it (unchanged), or found with the file's limit and
 *       other settings someone chose since (kept as stored: made to fail closed, enforced, given overrides'
 *       room): an import never overwrites a rule, so those choices survive a re-import of the file from git.
 *       One stored with another limit or domain refuses the whole import (409 {@code import_conflict}): the
 *       file and the store disagree about the number, and which is right is for someone to decide, not for
 *       an import to settle by half.</li>
 *   <li>The mapping is created, found as the file has it, or replaced as {@code PUT /v1/descriptors/{domain}}
 *       replaces it: only with its current version in {@code If-Match} (428 without, 409 for another).</li>
 * </ul>
 * So importing the same file twice changes nothing the second time. A dry run is the same import, rolled back.
 */
@Component
class EnvoyImport {

    static final String DEFAULT_REASON = "imported from envoyproxy/ratelimit configuration";

    private final RuleCatalog ruleCatalog;
    private final RuleRepository rules;
    private final DescriptorCatalog descriptorCatalog;
    private final DescriptorRepository descriptors;
    private final VersionedWrites writes;
    private final JsonMapper json;
    private final RuleValidator validator = new RuleValidator();

    EnvoyImport(RuleCatalog ruleCatalog, RuleRepository rules, DescriptorCatalog descriptorCatalog, DescriptorRepository descriptors,
                VersionedWrites writes, JsonMapper json) {
        this.ruleCatalog = ruleCatalog;
        this.rules = rules;
        this.descriptorCatalog = descriptorCatalog;
        this.descriptors = descriptors;
        this.writes = writes;
        this.json = json;
    }

    /** Imports the file in {@code body} (YAML), or with {@code dryRun} answers what importing it would do and stores nothing. */
    ImportReport run(byte[] body, boolean dryRun, IfMatch ifMatch, String actor, String reason) {
        String why = reason == null || reason.isBlank() ? DEFAULT_REASON : reason;
        List<Violation> badReason = validator.validateReason(why);
        if (!badReason.isEmpty()) {
            throw new InvalidEnvoyConfigException(badReason);
        }
        PlainTree.Parsed file = PlainTree.yaml(body);
        if (!file.ok()) {
            // unlike a rules-as-code file, an unreadable one is 422 here too: this import answered so before those existed
            throw new InvalidEnvoyConfigException(file.problems());
        }
        Translation translation = EnvoyConfig.translate(file.tree());
        if (!translation.valid()) {
            throw new InvalidEnvoyConfigException(translation.violations());
        }
        Supplier<ImportReport> write = () -> write(translation, dryRun, ifMatch, actor, why);
        return dryRun ? writes.rehearsed(write) : writes.locked(write);
    }

    private ImportReport write(Translation translation, boolean dryRun, IfMatch ifMatch, String actor, String reason) {
        Map<String, Rule> stored = new HashMap<>();
        List<Violation> conflicts = new ArrayList<>();
        for (Rule rule : translation.rules()) {
            Optional<Rule> existing = rules.find(rule.id());
            if (existing.isPresent()) {
                stored.put(rule.id(), existing.get());
                if (!existing.get().limit().equals(rule.limit()) || !existing.get().domain().equals(rule.domain())) {
                    conflicts.add(new Violation("rule " + rule.id(), "is stored at version " + existing.get().version() + " with another "
                            + (existing.get().domain().equals(rule.domain()) ? "limit" : "domain") + ": " + differences(existing.get(), rule)
                            + ". Change or delete that rule (PUT or DELETE /v1/rules/" + rule.id() + ") and import again"));
                }
            }
        }
        if (!conflicts.isEmpty()) {
            throw new ImportConflictException(conflicts);
        }
        List<RuleOutcome> outcomes = new ArrayList<>();
        for (Rule rule : translation.rules()) {
            Rule existing = stored.get(rule.id());
            if (existing == null) {
                Written<Rule> created = ruleCatalog.put(rule.fields(), IfMatch.parse(null), actor, reason);
                outcomes.add(new RuleOutcome(rule.id(), Outcome.CREATED, created.value(), null));
            } else {
                String differences = differences(existing, rule);
                outcomes.add(differences.isEmpty() ? new RuleOutcome(rule.id(), Outcome.UNCHANGED, existing, null)
                        : new RuleOutcome(rule.id(), Outcome.KEPT, existing, differences));
            }
        }
        List<Note> notMapped = new ArrayList<>(translation.notes());
        MappingOutcome mapping = null;
        if (translation.mapping().descriptors().isEmpty()) {
            notMapped.add(new Note("descriptors", "not mapped: the file has no descriptors, so it limits nothing and nothing is stored"
                    + " for domain " + translation.domain() + descriptors.find(translation.domain())
                    .map(kept -> " (its stored descriptors, version " + kept.version() + ", are left as they are)").orElse("")));
        } else {
            mapping = mapping(translation.mapping(), ifMatch, actor, reason);
        }
        return new ImportReport(translation.domain(), dryRun, outcomes, mapping, notMapped);
    }

    private MappingOutcome mapping(DescriptorDomain candidate, IfMatch ifMatch, String actor, String reason) {
        Optional<DescriptorDomain> existing = descriptors.find(candidate.domain());
        if (existing.isPresent() && existing.get().withVersion(candidate.version()).equals(candidate)) {
            // PUT would ask for If-Match even here; an import of the same file must be repeatable without reading first
            ifMatch.checkIfPresent("the descriptors of domain " + candidate.domain(), existing.get().version());
            return MappingOutcome.of(existing.get(), Outcome.UNCHANGED);
        }
        Written<DescriptorDomain> written = descriptorCatalog.put(candidate, ifMatch, actor, reason);
        return MappingOutcome.of(written.value(), written.created() ? Outcome.CREATED : Outcome.REPLACED);
    }

    /** The fields in which the stored rule differs from the file's, as the rules API names them; empty when none does. */
    private String differences(Rule stored, Rule imported) {
        JsonNode before = json.valueToTree(stored);
        JsonNode after = json.valueToTree(imported);
        TreeSet<String> names = new TreeSet<>(before.propertyNames());
        names.addAll(after.propertyNames());
        names.remove("version");
        List<String> differences = new ArrayList<>();
        for (String name : names) {
            JsonNode here = before.get(name);
            JsonNode there = after.get(name);
            if (here == null ? there != null : !here.equals(there)) {
                differences.add(name + " is " + (here == null ? "unset" : here) + ", the file's " + (there == null ? "unset" : there));
            }
        }
        return String.join("; ", differences);
    }
}
