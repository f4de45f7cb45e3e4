package dev.tollgate.devstack.demo;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules file examples/nginx/nginx.conf's test runs against is the dev stack's demo rules, which the recipe
 * promises ("the demo rules"): a rule changed in one place and not the other fails here.
 */
class DemoRulesFileTest {

    private static final Path FILE = Path.of("../check-service/src/test/resources/rules-demo.yml");

    @Test
    @SuppressWarnings("unchecked")
    void theNginxRecipesRulesAreTheDevStacksDemoRules() throws IOException {
        Map<String, Object> file = new YAMLMapper().readValue(Files.readString(FILE), Map.class);
        Map<String, Map<String, Object>> fromFile = new LinkedHashMap<>();
        for (Map<String, Object> rule : (List<Map<String, Object>>) file.get("rules")) {
            fromFile.put((String) rule.get("id"), rule);
        }
        Map<String, Map<String, Object>> demo = new LinkedHashMap<>();
        JsonMapper json = JsonMapper.builder().build();
        for (DemoRules.DemoRule rule : DemoRules.RULES) {
            Map<String, Object> fields = new LinkedHashMap<>(json.readValue(rule.json(), Map.class));
            fields.remove("reason");
            fields.put("id", rule.id());
            demo.put(rule.id(), fields);
        }
        assertThat(fromFile.keySet()).containsExactlyInAnyOrderElementsOf(demo.keySet());
        demo.forEach((id, fields) -> assertThat(fromFile.get(id)).as(id).containsExactlyInAnyOrderEntriesOf(fields));
    }
}
