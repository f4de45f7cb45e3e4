package dev.tollgate.limiter.rules;

import dev.tollgate.common.check.CheckRequestValidator;
import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.descriptor.DescriptorNode;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
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
 * entry's exact value first, then the first wildcard value (one holding {@code *}) that the value fits,
 * else the node of that key with no value; the rule is the one at the node where the descriptor's last
 * entry lands. A descriptor that lands nowhere, or on a node with no rule, has no limit; one that lands
 * on an {@code unlimited} node is known to have none.
 *
 * <p>In the engine, not in an adapter, so an embedded gateway resolves descriptors as check-service does.
 */
public final class DescriptorBook {

    /** What a descriptor resolved to. {@code name} and {@code replaces} are envoyproxy/ratelimit's: a call drops the limits that another of its descriptors replaces. */
    public sealed interface Resolved permits Limited, Unlimited {

        Optional<String> name();

        List<String> replaces();
    }

    /**
     * A rule to check, and the key to check it for.
     *
     * @param detail the descriptor as a series name ({@code domain.key_value.key_value}) when its node counts
     *               hits per value ({@code detailed_metric}); the caller bounds how many such series it keeps
     */
    public record Limited(String rule, String key, Optional<String> name, List<String> replaces, Optional<String> detail)
            implements Resolved {

        public Limited(String rule, String key) {
            this(rule, key, Optional.empty(), List.of(), Optional.empty());
        }
    }

    /** Matched a node that says the descriptor has no limit: answered OK, and not unmatched. */
    public record Unlimited(Optional<String> name, List<String> replaces) implements Resolved {
    }

    /** A compiled node: {@code parts} is a wildcard value split at its stars, empty for any other node. */
    private record Node(DescriptorNode source, List<String> parts, Level below) {

        boolean fits(String value) {
            return Wildcards.fits(parts, value);
        }
    }

    private record Level(Map<String, Node> exact, List<Node> wildcards, Map<String, Node> anyValue) {

        static final Level EMPTY = new Level(Map.of(), List.of(), Map.of());

        Node find(String key, String value) {
            Node node = exact.get(exactId(key, value));
            if (node != null) {
                return node;
            }
            for (Node wildcard : wildcards) {
                if (wildcard.source().key().equals(key) && wildcard.fits(value)) {
                    return wildcard;
                }
            }
            return anyValue.get(key);
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

    /** Whether any mapping is held for {@code domain}: envoyproxy/ratelimit counts calls for a domain it does not know. */
    public boolean knows(String domain) {
        return domains.containsKey(domain);
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
            level = node.below();
        }
        if (node == null) {
            return Optional.empty();
        }
        DescriptorNode found = node.source();
        Optional<String> name = Optional.ofNullable(found.name());
        if (found.unlimited()) {
            return Optional.of(new Unlimited(name, found.replaces()));
        }
        if (found.rule() == null) {
            return Optional.empty();
        }
        Optional<String> detail = found.detailedMetric() ? Optional.of(detail(domain, keys, values)) : Optional.empty();
        return Optional.of(new Limited(found.rule(), storable(limitKey(found, path, values)), name, found.replaces(), detail));
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
     * escaped so that two descriptors can only share a key when their values are the same. A value matched by
     * a {@code share_threshold} wildcard counts as the wildcard: every value it fits shares one counter.
     */
    private static String limitKey(DescriptorNode node, Node[] path, List<String> values) {
        if (node.limitKey() != null) {
            for (int i = 0; i < path.length; i++) {
                if (path[i].source().key().equals(node.limitKey())) {
                    return counted(path[i], values.get(i));
                }
            }
        }
        StringBuilder key = new StringBuilder();
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                key.append('|');
            }
            String value = counted(path[i], values.get(i));
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

    private static String counted(Node node, String value) {
        return node.source().shareThreshold() ? node.source().value() : value;
    }

    /** envoyproxy/ratelimit's detailed series name: the domain, then each entry as {@code key_value}. */
    private static String detail(String domain, List<String> keys, List<String> values) {
        StringBuilder name = new StringBuilder(domain);
        for (int i = 0; i < keys.size(); i++) {
            name.append('.').append(keys.get(i));
            if (!values.get(i).isEmpty()) {
                name.append('_').append(values.get(i));
            }
        }
        return name.toString();
    }

    private static Level level(List<DescriptorNode> nodes) {
        Map<String, Node> exact = new HashMap<>();
        List<Node> wildcards = new ArrayList<>();
        Map<String, Node> anyValue = new HashMap<>();
        for (DescriptorNode node : nodes) {
            Level below = level(node.descriptors());
            if (node.value() == null) {
                anyValue.put(node.key(), new Node(node, List.of(), below));
            } else if (node.wildcard()) {
                wildcards.add(new Node(node, Wildcards.parts(node.value()), below));
            } else {
                exact.put(exactId(node.key(), node.value()), new Node(node, List.of(), below));
            }
        }
        return new Level(Map.copyOf(exact), List.copyOf(wildcards), Map.copyOf(anyValue));
    }

    /** NUL cannot be in a validated key, so no other key and value can make the same id. */
    private static String exactId(String key, String value) {
        return key + '\u0000' + value;
    }
}
