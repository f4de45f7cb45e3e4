package dev.tollgate.limiter.rules;

import dev.tollgate.common.check.CheckRequestValidator;
import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.descriptor.DescriptorNode;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The descriptor mappings in force, compiled for look-up: which rule and which limit key a descriptor
 * resolves to. Replaced whole when a snapshot is applied, so a look-up never sees half of a change.
 *
 * <p>Matching follows envoyproxy/ratelimit: entry by entry down the domain's tree, a node with the
 * entry's exact value first, else the node of that key with no value; the rule is the one at the node
 * where the descriptor's last entry lands. A descriptor that lands nowhere, or on a node with no rule,
 * has no limit.
 *
 * <p>In the engine, not in an adapter, so an embedded gateway resolves descriptors as check-service does.
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

    /** The prefix of a key made from a digest of values the store cannot key as they are. */
    public static final String DIGESTED = "sha256:";

    private volatile Map<String, Level> domains = Map.of();

    public void apply(List<DescriptorDomain> mappings) {
        Map<String, Level> compiled = new HashMap<>();
        for (DescriptorDomain mapping : mappings) {
            compiled.put(mapping.domain(), level(mapping.descriptors()));
        }
        domains = Map.copyOf(compiled);
    }

    /** The rule and key for one descriptor's entries, unless no rule limits it. */
    public Optional<Resolved> resolve(String domain, List<String> keys, List<String> values) {
        Level level = domains.getOrDefault(domain, Level.EMPTY);
        Node node = null;
        Node[] path = new Node[keys.size()];
        for (int i = 0; i < keys.size(); i++) {
            node = level.find(keys.get(i), values.get(i));
            if (node == null) {
                return Optional.empty();
            }
            path[i] = node;
            level = new Level(node.exact(), node.anyValue());
        }
        if (node == null || node.rule() == null) {
            return Optional.empty();
        }
        return Optional.of(new Resolved(node.rule(), storable(limitKey(node, path, values))));
    }

    /**
     * The key as it is when the store can key it, else {@code sha256:<hex>} of its characters. A descriptor's
     * values are the caller's (a header, a path): refusing one that is too long, empty or holds a TAB would
     * fail the whole call, which Envoy allows, so one such header switched off every limit of the call. Hashed
     * char by char, not as UTF-8, so that two values with different lone surrogates keep keys of their own.
     */
    public static String storable(String key) {
        if (CheckRequestValidator.keyProblem(key).isEmpty()) {
            return key;
        }
        MessageDigest sha256 = sha256();
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            sha256.update((byte) (c >>> 8));
            sha256.update((byte) c);
        }
        return DIGESTED + HexFormat.of().formatHex(sha256.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
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
