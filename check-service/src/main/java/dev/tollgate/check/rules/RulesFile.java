package dev.tollgate.check.rules;

import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleFields;
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
 * </pre>
 */
public final class RulesFile {

    private static final YAMLMapper YAML = YAMLMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .build();

    /** The rules as written, so that each is judged field by field before it becomes a {@link Rule}. */
    record Document(List<RuleFields> rules) {
    }

    private RulesFile() {
    }

    public static List<Rule> read(Path file) {
        if (!Files.isReadable(file)) {
            throw new IllegalStateException("tollgate.rules.file: cannot read " + file.toAbsolutePath());
        }
        try {
            Document document = YAML.readValue(file.toFile(), Document.class);
            return document == null || document.rules() == null ? List.of() : rules(file, document.rules());
        } catch (JacksonException e) {
            throw new IllegalStateException("tollgate.rules.file: " + file + " is not a valid rules file: " + e.getOriginalMessage(), e);
        }
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
