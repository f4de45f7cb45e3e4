package dev.tollgate.check.envoy;

import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.descriptor.DescriptorNode;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The descriptor mappings in force, compiled for look-up: which rule and which limit key a descriptor
 * resolves to. Replaced whole when a snapshot is applied, so a look-up never sees half of a change.
 *
 * <p>Matching follows envoyproxy/ratelimit: entry by entry down the domain's tree, a node with the
 * entry's exact value first, else the node of that key with no value; the rule is the one at the node
 * where the descriptor's last entry lands. A descriptor that lands nowhere, or on a node with no rule,
 * has no limit.
 */
public final class DescriptorBook {

    /** What a descriptor resolved to: the rule to check, and the key to check it for. */
    public record Resolved(String rule, String key) {
    }

    private record Node(String key, String rule, String limitKey, Map<String, Node> exact, Map<String, Node> anyValue) {
    }

    private record Level(Map<String, Node> exact, Map<String, Node> anyValue) {

        static final Level EMPTY = new Level(Map.of(), Map.of());

        Node find(String key, String value) {
            Node node = exact.get(exactId(key, value));
            return node != null ? node : anyValue.get(key);
        }
    }

    private volatile Map<String, Level> domains = Map.of();

    public void apply(List<DescriptorDomain> mappings) {
        Map<String, Level> compiled = new HashMap<>();
        for (DescriptorDomain mapping : mappings) {
            compiled.put(mapping.domain(), level(mapping.descriptors()));
        }
        domains = Map.copyOf(compiled);
    }

    /** The rule and key for one descriptor's entries, or null when no rule limits it. */
    public Resolved resolve(String domain, List<String> keys, List<String> values) {
        Level level = domains.getOrDefault(domain, Level.EMPTY);
        Node node = null;
        Node[] path = new Node[keys.size()];
        for (int i = 0; i < keys.size(); i++) {
            node = level.find(keys.get(i), values.get(i));
            if (node == null) {
                return null;
            }
            path[i] = node;
            level = new Level(node.exact(), node.anyValue());
        }
        if (node == null || node.rule() == null) {
            return null;
        }
        return new Resolved(node.rule(), limitKey(node, path, values));
    }

    /**
     * The limit key: the value of the entry the node names, else every value of the descriptor, each
     * escaped so that two descriptors can only share a key when their values are the same.
     */
    private static String limitKey(Node node, Node[] path, List<String> values) {
        if (node.limitKey() != null) {
            for (int i = 0; i < path.length; i++) {
                if (path[i].key().equals(node.limitKey())) {
                    return values.get(i);
                }
            }
        }
        StringBuilder key = new StringBuilder();
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                key.append('|');
            }
            String value = values.get(i);
            for (int c = 0; c < value.length(); c++) {
                char ch = value.charAt(c);
                if (ch == '|' || ch == '\\') {
                    key.append('\\');
                }
                key.append(ch);
            }
        }
        return key.toString();
    }

    private static Level level(List<DescriptorNode> nodes) {
        Map<String, Node> exact = new HashMap<>();
        Map<String, Node> anyValue = new HashMap<>();
        for (DescriptorNode node : nodes) {
            Level below = level(node.descriptors());
            Node compiled = new Node(node.key(), node.rule(), node.limitKey(), below.exact(), below.anyValue());
            if (node.value() == null) {
                anyValue.put(node.key(), compiled);
            } else {
                exact.put(exactId(node.key(), node.value()), compiled);
            }
        }
        return new Level(Map.copyOf(exact), Map.copyOf(anyValue));
    }

    /** NUL cannot be in a validated key, so no other key and value can make the same id. */
    private static String exactId(String key, String value) {
        return key + '\u0000' + value;
    }
}
