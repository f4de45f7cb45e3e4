package dev.tollgate.common.ascode;

import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.descriptor.DescriptorNode;
import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleFields;
import dev.tollgate.common.validation.DescriptorValidator;
import dev.tollgate.common.validation.RuleValidator;
import dev.tollgate.common.validation.Violation;
import dev.tollgate.common.wire.PlainTree;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A domain's configuration file, read and written. Reading ({@link #parse}) takes YAML or JSON, reads it field
 * by field and judges the whole of it with the validators the single-object endpoints use, listing every problem
 * at its path ({@code rules[2].burst}); writing ({@link #write}) gives the canonical form:
 *
 * <ul>
 *   <li>{@code domain}, then {@code rules} (by id), {@code descriptors} (as written: order decides between
 *       wildcards), {@code overrides} (by account, then rule); a section with nothing in it is left out.</li>
 *   <li>Each object's fields in the order the API documents them; a field at its default is left out
 *       ({@code identity: api_key}, {@code mode: enforce}, {@code fail_mode: open}, {@code max_cost: 1},
 *       {@code period_s: 1}, a node's {@code false} flags and empty lists), as is a rule's {@code domain},
 *       which is the file's.</li>
 *   <li>Enum values in lower case, instants as ISO-8601 in UTC ({@code "2030-01-01T00:00:00Z"}).</li>
 * </ul>
 * So an exported file applied again changes nothing, and a file in this form is exported back byte for byte.
 */
public final class DomainFile {

    /** The two spellings of a file. */
    public enum Format {
        YAML, JSON;

        /** YAML unless the file name (or media type) says JSON. */
        public static Format of(String nameOrMediaType) {
            return nameOrMediaType != null && nameOrMediaType.toLowerCase(java.util.Locale.ROOT).contains("json") ? JSON : YAML;
        }
    }

    /**
     * A file read: its configuration, or why not. {@code unreadable} when it is not YAML (JSON) at all; else
     * {@code violations}, every problem of its content; else the configuration.
     */
    public record Reading(DomainConfig config, String unreadable, List<Violation> violations) {

        public Reading {
            violations = List.copyOf(violations);
        }

        public boolean valid() {
            return config != null;
        }

        /** Every problem, the unreadable one as the whole file's. */
        public List<Violation> problems() {
            return unreadable == null ? violations : List.of(new Violation("", unreadable));
        }
    }

    private DomainFile() {
    }

    /** Reads and judges the file in {@code body}; {@code now} decides whether an override's expiry has passed. */
    public static Reading parse(byte[] body, Format format, Instant now) {
        PlainTree.Parsed parsed = format == Format.JSON ? PlainTree.json(body) : PlainTree.yaml(body);
        if (parsed.unreadable() != null) {
            return new Reading(null, parsed.unreadable(), List.of());
        }
        if (!parsed.violations().isEmpty()) {
            return new Reading(null, null, parsed.violations());
        }
        return read(parsed.tree(), now);
    }

    /** Reads and judges a file already parsed into a plain tree. */
    public static Reading read(Object tree, Instant now) {
        DomainReader reader = new DomainReader();
        DomainReader.Content content = reader.read(tree);
        List<Violation> violations = new ArrayList<>(reader.violations());
        if (content != null) {
            violations.addAll(judge(content, now));
        }
        if (!violations.isEmpty() || content == null) {
            return new Reading(null, null, violations);
        }
        List<Rule> rules = content.rules().stream().map(RuleFields::toRule).toList();
        List<AccountOverride> overrides = content.overrides().stream().map(DomainReader.WrittenOverride::toOverride).toList();
        return new Reading(new DomainConfig(content.domain(), rules, content.descriptors(), overrides), null, List.of());
    }

    /**
     * The shared validators over the whole file: each rule; the mapping against the file's rules (a mapping names
     * rules of its own domain only, so the file's are all it may name); each override against its rule in the file.
     */
    private static List<Violation> judge(DomainReader.Content content, Instant now) {
        RuleValidator rules = new RuleValidator();
        List<Violation> violations = new ArrayList<>();
        Map<String, Rule> byId = new HashMap<>();
        Map<String, Integer> firstAt = new HashMap<>();
        for (int i = 0; i < content.rules().size(); i++) {
            RuleFields fields = content.rules().get(i);
            List<Violation> own = rules.validate(fields);
            prefixed("rules[" + i + "].", own, violations);
            Integer before = fields.id() == null ? null : firstAt.putIfAbsent(fields.id(), i);
            if (before != null) {
                violations.add(new Violation("rules[" + i + "].id", "is given twice: rules[" + before + "] has it too"));
            } else if (own.isEmpty()) {
                byId.put(fields.id(), fields.toRule());
            }
        }
        if (content.descriptors() != null) {
            for (Violation v : new DescriptorValidator().validate(content.descriptors(), byId)) {
                // the domain is judged once, as the file's
                if (!v.field().equals("domain")) {
                    violations.add(v);
                }
            }
        }
        Map<String, Integer> overrideAt = new HashMap<>();
        for (int i = 0; i < content.overrides().size(); i++) {
            DomainReader.WrittenOverride written = content.overrides().get(i);
            String at = "overrides[" + i + "].";
            List<Violation> shape = rules.validateWritten(written.accountId(), written.ruleId(), written.ratePerS(), written.burst(),
                    written.expiresAt(), now);
            prefixed(at, shape, violations);
            prefixed(at, rules.validateReason(written.reason()), violations);
            if (!shape.isEmpty()) {
                continue;
            }
            AccountOverride override = written.toOverride();
            Rule rule = byId.get(override.ruleId());
            if (rule == null && firstAt.containsKey(override.ruleId())) {
                continue; // that rule is refused already, and an override of it cannot be judged
            }
            for (Violation v : rules.validate(override, rule)) {
                violations.add(new Violation(at + v.field(), v.message() + (rule == null ? " of this file (an override belongs with its rule)" : "")));
            }
            Integer before = overrideAt.putIfAbsent(override.accountId() + "\u0000" + override.ruleId(), i);
            if (before != null) {
                violations.add(new Violation("overrides[" + i + "]", "is a second override of rule " + override.ruleId()
                        + " for the same account: overrides[" + before + "] is the first"));
            }
        }
        return violations;
    }

    private static void prefixed(String prefix, List<Violation> own, List<Violation> into) {
        for (Violation v : own) {
            into.add(new Violation(prefix + v.field(), v.message()));
        }
    }

    /** The canonical text of {@code config}. */
    public static String write(DomainConfig config, Format format) {
        Map<String, Object> tree = tree(config);
        return format == Format.JSON ? CanonicalText.json(tree) : CanonicalText.yaml(tree);
    }

    /**
     * What identifies a configuration: the SHA-256 of its canonical JSON, in hex. Two configurations are the same
     * exactly when their digests are, so a file's digest, computed anywhere, says whether the store holds it.
     */
    public static String digest(DomainConfig config) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(write(config, Format.JSON).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    /** The configuration as the plain tree the canonical form writes. */
    static Map<String, Object> tree(DomainConfig config) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("domain", config.domain());
        if (!config.rules().isEmpty()) {
            root.put("rules", config.rules().stream().map(DomainFile::rule).toList());
        }
        if (config.descriptors() != null) {
            root.put("descriptors", nodes(config.descriptors().descriptors()));
        }
        if (!config.overrides().isEmpty()) {
            root.put("overrides", config.overrides().stream().map(DomainFile::override).toList());
        }
        return root;
    }

    /** A rule's tree: everything the API writes, less its domain and version and the fields at their defaults. */
    public static Map<String, Object> rule(Rule rule) {
        RuleFields fields = rule.fields();
        Map<String, Object> tree = new LinkedHashMap<>();
        tree.put("id", fields.id());
        Map<String, Object> match = new LinkedHashMap<>();
        putIfSet(match, "plan", fields.match().plan());
        putIfSet(match, "route", fields.match().route());
        if (!match.isEmpty()) {
            tree.put("match", match);
        }
        if (fields.identity() != DomainReader.DEFAULTS.identity()) {
            tree.put("identity", DomainReader.wire(fields.identity()));
        }
        tree.put("algorithm", DomainReader.wire(fields.algorithm()));
        putIfSet(tree, "rate_per_s", fields.ratePerS());
        if (fields.periodS() != null && !fields.periodS().equals(DomainReader.DEFAULTS.periodS())) {
            tree.put("period_s", fields.periodS());
        }
        putIfSet(tree, "burst", fields.burst());
        putIfSet(tree, "limit", fields.limit());
        putIfSet(tree, "window_s", fields.windowS());
        if (fields.mode() != DomainReader.DEFAULTS.mode()) {
            tree.put("mode", DomainReader.wire(fields.mode()));
        }
        if (fields.failMode() != DomainReader.DEFAULTS.failMode()) {
            tree.put("fail_mode", DomainReader.wire(fields.failMode()));
        }
        if (!fields.maxCost().equals(DomainReader.DEFAULTS.maxCost())) {
            tree.put("max_cost", fields.maxCost());
        }
        if (fields.counting() != DomainReader.DEFAULTS.counting()) {
            tree.put("counting", DomainReader.wire(fields.counting()));
        }
        return tree;
    }

    private static List<Object> nodes(List<DescriptorNode> nodes) {
        List<Object> list = new ArrayList<>();
        for (DescriptorNode node : nodes) {
            Map<String, Object> tree = new LinkedHashMap<>();
            putIfSet(tree, "key", node.key());
            putIfSet(tree, "value", node.value());
            putIfSet(tree, "rule", node.rule());
            putIfSet(tree, "limit_key", node.limitKey());
            putIfTrue(tree, "unlimited", node.unlimited());
            putIfSet(tree, "name", node.name());
            if (!node.replaces().isEmpty()) {
                tree.put("replaces", List.copyOf(node.replaces()));
            }
            putIfTrue(tree, "share_threshold", node.shareThreshold());
            putIfTrue(tree, "detailed_metric", node.detailedMetric());
            if (!node.descriptors().isEmpty()) {
                tree.put("descriptors", nodes(node.descriptors()));
            }
            list.add(tree);
        }
        return list;
    }

    /** An override's tree, in the order of the overrides API. */
    public static Map<String, Object> override(AccountOverride override) {
        Map<String, Object> tree = new LinkedHashMap<>();
        tree.put("account_id", override.accountId());
        tree.put("rule_id", override.ruleId());
        tree.put("rate_per_s", override.ratePerS());
        tree.put("burst", override.burst());
        putIfSet(tree, "expires_at", override.expiresAt() == null ? null : override.expiresAt().toString());
        putIfSet(tree, "reason", override.reason());
        return tree;
    }

    private static void putIfSet(Map<String, Object> tree, String name, Object value) {
        if (value != null) {
            tree.put(name, value);
        }
    }

    private static void putIfTrue(Map<String, Object> tree, String name, boolean value) {
        if (value) {
            tree.put(name, true);
        }
    }
}
