package dev.tollgate.common.validation;

import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.descriptor.DescriptorNode;
import dev.tollgate.common.rule.Rule;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decides whether a domain's descriptor mappings can be served: every node says what it matches, every
 * rule it names exists in that domain, every {@code limit_key} names a key on the node's path, and
 * envoyproxy/ratelimit's extras ({@code unlimited}, {@code replaces}, {@code share_threshold}, ...) stand
 * where they mean something. Shared by
 * rules-service (422 on a bad mapping) and the pods (which refuse a snapshot or file that holds one).
 */
public final class DescriptorValidator {

    /** envoyproxy/ratelimit configurations nest two or three deep; a deeper tree is a mistake, or an attack on the matcher. */
    public static final int MAX_DEPTH = 8;
    /** Every pod holds every mapping and ships them in each snapshot. */
    public static final int MAX_NODES = 1000;
    public static final int MAX_KEY = 128;
    public static final int MAX_VALUE = 256;

    public List<Violation> validate(DescriptorDomain mapping, Map<String, Rule> rulesById) {
        List<Violation> violations = new ArrayList<>();
        if (mapping.domain() == null || mapping.domain().isBlank()) {
            violations.add(new Violation("domain", "is required"));
        } else if (!RuleValidator.isStorableText(mapping.domain(), RuleValidator.MAX_DOMAIN)) {
            violations.add(new Violation("domain", "must be at most " + RuleValidator.MAX_DOMAIN + " characters, without control characters"));
        }
        if (mapping.descriptors().isEmpty()) {
            violations.add(new Violation("descriptors", "must hold at least one descriptor"));
            return violations;
        }
        int[] nodes = {0};
        level("descriptors", mapping.descriptors(), List.of(), 1, mapping.domain(), rulesById, nodes, violations);
        if (nodes[0] > MAX_NODES) {
            violations.add(new Violation("descriptors", "hold " + nodes[0] + " nodes; at most " + MAX_NODES + " are allowed"));
        }
        return violations;
    }

    private static void level(String path, List<DescriptorNode> level, List<String> keysAbove, int depth, String domain,
                              Map<String, Rule> rulesById, int[] nodes, List<Violation> violations) {
        if (depth > MAX_DEPTH) {
            violations.add(new Violation(path, "nest deeper than " + MAX_DEPTH + " levels"));
            return;
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < level.size(); i++) {
            String at = path + "[" + i + "]";
            DescriptorNode node = level.get(i);
            if (node == null) {
                violations.add(new Violation(at, "must be an object"));
                continue;
            }
            if (++nodes[0] > MAX_NODES) {
                return;
            }
            node(at, node, keysAbove, domain, rulesById, violations);
            if (node.key() != null && !seen.add(node.key() + "\u0000" + (node.value() == null ? "\u0001" : node.value()))) {
                violations.add(new Violation(at, "matches the same key" + (node.value() == null ? "" : " and value") + " as a node before it"));
            }
            if (!node.descriptors().isEmpty()) {
                List<String> keys = new ArrayList<>(keysAbove);
                keys.add(node.key());
                level(at + ".descriptors", node.descriptors(), keys, depth + 1, domain, rulesById, nodes, violations);
            }
        }
    }

    private static void node(String at, DescriptorNode node, List<String> keysAbove, String domain, Map<String, Rule> rulesById,
                             List<Violation> violations) {
        if (node.key() == null || node.key().isEmpty()) {
            violations.add(new Violation(at + ".key", "is required"));
        } else if (!RuleValidator.isStorableText(node.key(), MAX_KEY)) {
            violations.add(new Violation(at + ".key", "must be at most " + MAX_KEY + " characters, without control characters"));
        }
        if (node.value() != null && (node.value().isEmpty() || !RuleValidator.isStorableText(node.value(), MAX_VALUE))) {
            violations.add(new Violation(at + ".value", "must be 1-" + MAX_VALUE + " characters, without control characters, or left out to match any value"));
        }
        if (node.name() != null && (node.name().isEmpty() || !RuleValidator.isStorableText(node.name(), MAX_KEY))) {
            violations.add(new Violation(at + ".name", "must be 1-" + MAX_KEY + " characters, without control characters"));
        }
        for (int r = 0; r < node.replaces().size(); r++) {
            String replaced = node.replaces().get(r);
            if (replaced == null || replaced.isEmpty() || !RuleValidator.isStorableText(replaced, MAX_KEY)) {
                violations.add(new Violation(at + ".replaces[" + r + "]", "must name a limit: 1-" + MAX_KEY + " characters, without control characters"));
            } else if (replaced.equals(node.name())) {
                violations.add(new Violation(at + ".replaces[" + r + "]", "names this node itself"));
            }
        }
        if (node.shareThreshold() && !node.wildcard()) {
            violations.add(new Violation(at + ".share_threshold", "is only meaningful on a wildcard value (one holding *)"));
        }
        if (node.unlimited()) {
            if (node.rule() != null) {
                violations.add(new Violation(at + ".unlimited", "cannot be beside a rule: a node is limited by its rule or not at all"));
            }
            if (node.limitKey() != null || node.detailedMetric()) {
                violations.add(new Violation(at + (node.limitKey() != null ? ".limit_key" : ".detailed_metric"), "is only meaningful beside a rule"));
            }
            return;
        }
        if (node.rule() == null) {
            if (node.descriptors().isEmpty()) {
                violations.add(new Violation(at, "names no rule, is not unlimited and has no descriptors below it: it maps nothing"));
            }
            if (node.limitKey() != null) {
                violations.add(new Violation(at + ".limit_key", "is only meaningful beside a rule"));
            }
            if (node.detailedMetric() || !node.replaces().isEmpty()) {
                violations.add(new Violation(at + (node.detailedMetric() ? ".detailed_metric" : ".replaces"), "is only meaningful beside a rule"));
            }
            return;
        }
        Rule rule = rulesById.get(node.rule());
        if (!RuleValidator.isRuleId(node.rule()) || rule == null) {
            violations.add(new Violation(at + ".rule", "names no rule" + (RuleValidator.isRuleId(node.rule()) ? " " + node.rule() : "")));
        } else if (domain != null && !domain.equals(rule.domain())) {
            violations.add(new Violation(at + ".rule", "names rule " + rule.id() + " of domain " + rule.domain() + ", not of this domain"));
        }
        if (node.limitKey() != null && !node.limitKey().equals(node.key()) && !keysAbove.contains(node.limitKey())) {
            violations.add(new Violation(at + ".limit_key", "must be the key of this node or of one above it"
                    + (RuleValidator.isStorableText(node.limitKey(), MAX_KEY) ? " (" + node.limitKey() + " is neither)" : "")));
        }
    }
}
