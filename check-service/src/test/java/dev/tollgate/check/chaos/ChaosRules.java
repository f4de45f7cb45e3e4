package dev.tollgate.check.chaos;

import dev.tollgate.check.rules.RulesFile;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Rule;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The suite's rules ({@code chaos-rules.yml}), read by the same reader the pods use, and what each one allows:
 * the most a key can be admitted by the store over a span of time, and the fail-open allowance of the fallback
 * buckets (docs/failure-modes.md: {@code limit ÷ pods × 2} per pod, so twice the limit across the pods).
 */
final class ChaosRules {

    static final String DOMAIN = "chaos";
    static final Path FILE = Path.of("src/test/resources/chaos-rules.yml").toAbsolutePath();

    private final Map<String, Rule> byId = new LinkedHashMap<>();

    private ChaosRules(List<Rule> rules) {
        rules.forEach(rule -> byId.put(rule.id(), rule));
    }

    static ChaosRules load() {
        return new ChaosRules(RulesFile.read(FILE));
    }

    List<Rule> all() {
        return List.copyOf(byId.values());
    }

    Rule rule(String id) {
        Rule rule = byId.get(id);
        if (rule == null) {
            throw new IllegalArgumentException("no chaos rule " + id);
        }
        return rule;
    }

    /**
     * The most the store can admit one key of {@code rule} between two instants: a token bucket starts full and
     * refills at its rate ({@code B + R·T}); a sliding log admits its limit in any window, so at most
     * {@code limit × (⌊T/W⌋ + 1)}; a fixed window its limit in each UTC-aligned window the span touches.
     */
    static double storeBound(Rule rule, long firstWallMs, long lastWallMs) {
        double spanS = Math.max(0, lastWallMs - firstWallMs) / 1000.0;
        if (rule.limit() instanceof Limit.TokenBucket bucket) {
            return bucket.burst() + bucket.perSecond() * spanS;
        }
        Limit.CountPerWindow count = (Limit.CountPerWindow) rule.limit();
        if (count instanceof Limit.SlidingLog) {
            return count.limit() * (Math.floor(spanS / count.windowS()) + 1);
        }
        long windowMs = count.windowS() * 1000L;
        return count.limit() * (double) (Math.floorDiv(lastWallMs, windowMs) - Math.floorDiv(firstWallMs, windowMs) + 1);
    }

    /** What all pods' fallback buckets together may admit of one key during an outage of {@code outageS}. */
    static double failOpenAllowance(Rule rule, double outageS) {
        return 2 * capacity(rule) + 2 * ratePerS(rule) * outageS;
    }

    static double capacity(Rule rule) {
        return rule.limit().capacity();
    }

    static double ratePerS(Rule rule) {
        return rule.limit().perSecond();
    }

    /**
     * Writes the rules as rules-service's watch feed would serve them ({@code GET /v1/watch}), which is also the
     * file a pod saves its last good snapshot in: what a pod restarted during a rules-service outage reads.
     */
    static void writeSnapshot(Path file, long revision) {
        try {
            JsonNode yaml = YAMLMapper.builder().build().readTree(FILE.toFile());
            JsonMapper json = JsonMapper.builder().build();
            ObjectNode snapshot = json.createObjectNode();
            snapshot.put("revision", revision);
            ArrayNode rules = snapshot.putArray("rules");
            for (JsonNode rule : yaml.get("rules")) {
                ObjectNode copy = ((ObjectNode) rule).deepCopy();
                copy.put("mode", "enforce");
                copy.put("version", 1);
                rules.add(copy);
            }
            snapshot.putArray("overrides");
            snapshot.putArray("region_budgets");
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, json.writeValueAsString(snapshot));
        } catch (IOException e) {
            throw new UncheckedIOException("could not write a rules snapshot to " + file, e);
        }
    }
}
