package dev.tollgate.check.rules;

import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleFields;
import dev.tollgate.common.validation.DescriptorValidator;
import dev.tollgate.common.validation.RuleValidator;
import dev.tollgate.common.validation.Violation;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Reads a static rules file: a YAML document with a {@code rules:} list, in the same snake_case fields
 * as rules-service's API, judged as that API judges a rule. A pod given a broken file refuses to start
 * rather than enforce a guess.
 *
 * <pre>
 * rules:
 *   - id: growth-global
 *     domain: public-api
 *     match: { plan: growth }
 *     algorithm: token_bucket
 *     rate_per_s: 100
 *     burst: 200
 * descriptor_domains:          # optional: how Envoy's descriptors map to the rules (RLS v3)
 *   - domain: public-api
 *     descriptors:
 *       - key: account
 *         rule: growth-global
 * </pre>
 */
public final class RulesFile {

    private static final YAMLMapper YAML = YAMLMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .build();

    /** What a rules file holds: the rules, and the descriptor mappings over them. */
    public record Document(List<Rule> rules, List<DescriptorDomain> descriptorDomains) {

        public Document {
            rules = rules == null ? List.of() : List.copyOf(rules);
            descriptorDomains = descriptorDomains == null ? List.of() : List.copyOf(descriptorDomains);
        }
    }

    /** The file as written, so that each rule is judged field by field before it becomes a {@link Rule}. */
    record Written(List<RuleFields> rules, List<DescriptorDomain> descriptorDomains) {
    }

    private RulesFile() {
    }

    public static List<Rule> read(Path file) {
        return readDocument(file).rules();
    }

    /** The whole file; a descriptor mapping that names no rule of the file stops the pod, as a bad rule does. */
    public static Document readDocument(Path file) {
        if (!Files.isReadable(file)) {
            throw new IllegalStateException("tollgate.rules.file: cannot read " + file.toAbsolutePath());
        }
        Written written;
        try {
            written = YAML.readValue(file.toFile(), Written.class);
        } catch (JacksonException e) {
            throw new IllegalStateException("tollgate.rules.file: " + file + " is not a valid rules file: " + e.getOriginalMessage(), e);
        }
        if (written == null) {
            return new Document(null, null);
        }
        Document document = new Document(written.rules() == null ? List.of() : rules(file, written.rules()), written.descriptorDomains());
        Map<String, Rule> byId = document.rules().stream().collect(Collectors.toMap(Rule::id, Function.identity(), (a, b) -> a));
        DescriptorValidator validator = new DescriptorValidator();
        for (DescriptorDomain mapping : document.descriptorDomains()) {
            List<Violation> violations = validator.validate(mapping, byId);
            if (!violations.isEmpty()) {
                throw new IllegalStateException("tollgate.rules.file: " + file + ": the descriptors of domain " + mapping.domain()
                        + " are invalid: " + violations);
            }
        }
        return document;
    }

    /** As rules-service judges a rule written to its API: a field missing, out of bounds or of another algorithm is refused. */
    private static List<Rule> rules(Path file, List<RuleFields> written) {
        RuleValidator validator = new RuleValidator();
        List<Rule> rules = new ArrayList<>(written.size());
        for (int i = 0; i < written.size(); i++) {
            RuleFields fields = written.get(i);
            List<Violation> violations = fields == null ? List.of(new Violation("", "is empty")) : validator.validate(fields);
            if (!violations.isEmpty()) {
                throw new IllegalStateException("tollgate.rules.file: " + file + ": rules[" + i + "]"
                        + (fields == null || fields.id() == null ? "" : " (" + fields.id() + ")") + " is invalid: " + violations);
            }
            rules.add(fields.toRule());
        }
        return List.copyOf(rules);
    }
}
