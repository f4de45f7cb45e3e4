package dev.tollgate.common.envoy;

import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.descriptor.DescriptorNode;
import dev.tollgate.common.rule.FailMode;
import dev.tollgate.common.rule.Identity;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Mode;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.validation.DescriptorValidator;
import dev.tollgate.common.validation.RuleValidator;
import dev.tollgate.common.validation.Violation;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One envoyproxy/ratelimit configuration file ({@code domain:} and its {@code descriptors:} tree), as
 * Tollgate's rules and one descriptor mapping that gives the same answers for the same calls.
 *
 * <p>Each descriptor with a {@code rate_limit} becomes a fixed-window rule of {@code requests_per_unit}
 * per {@code unit}, windows aligned to the epoch as envoyproxy/ratelimit aligns them, named after the
 * descriptor's path ({@code <domain>.<key>_<value>...}, as envoyproxy/ratelimit names its stats) so that
 * a file read again, on any pod, names the same counters. The file is judged as envoyproxy/ratelimit
 * judges it (an unknown field, an empty key, a unit beside {@code unlimited}, two descriptors of one key
 * and value... refuse the whole file); what it holds that Tollgate does not do is listed as {@link Note}s,
 * with what happens instead.
 *
 * <p>The input is the file as parsed YAML (maps, lists and scalars), so this module needs no YAML parser.
 */
public final class EnvoyConfig {

    /** What a file holds that Tollgate does not do, and what it does instead. */
    public record Note(String field, String message) {

        @Override
        public String toString() {
            return field + ": " + message;
        }
    }

    /**
     * A file translated: its rules and its mapping, or why it cannot be served (then there are neither).
     *
     * @param notes what was not mapped as written, and what happens instead
     */
    public record Translation(String domain, List<Rule> rules, DescriptorDomain mapping, List<Note> notes, List<Violation> violations) {

        public boolean valid() {
            return violations.isEmpty();
        }
    }

    /** envoyproxy/ratelimit's units and their length, as its {@code UnitToDivider} has them (a month is 30 days, a year 365). */
    static final Map<String, Integer> UNIT_SECONDS = Map.of(
            "SECOND", 1, "MINUTE", 60, "HOUR", 3_600, "DAY", 86_400, "WEEK", 604_800, "MONTH", 2_592_000, "YEAR", 31_536_000);

    private static final Set<String> ROOT_FIELDS = Set.of("domain", "descriptors");
    private static final Set<String> DESCRIPTOR_FIELDS = Set.of("key", "value", "rate_limit", "descriptors", "shadow_mode", "quota_mode",
            "detailed_metric", "value_to_metric", "share_threshold", "metadata");
    private static final Set<String> RATE_LIMIT_FIELDS = Set.of("unit", "requests_per_unit", "unlimited", "name", "replaces");
    private static final Pattern NOT_IN_ID = Pattern.compile("[^A-Za-z0-9._-]");
    private static final int MAX_ID = 64;
    /**
     * An imported rule's {@code match.route}: the rule is found by its descriptor, never by a request's route
     * (which starts with {@code /}), and a reader of the rule sees where it came from.
     */
    public static final String DESCRIPTOR_ROUTE = "descriptor:";

    private final List<Rule> rules = new ArrayList<>();
    private final List<Note> notes = new ArrayList<>();
    private final List<Violation> violations = new ArrayList<>();
    private String domain;

    private EnvoyConfig() {
    }

    /** The file parsed as YAML: a map with {@code domain} and {@code descriptors}. */
    public static Translation translate(Object file) {
        EnvoyConfig config = new EnvoyConfig();
        return config.root(file);
    }

    private Translation root(Object file) {
        if (!(file instanceof Map<?, ?> root)) {
            violations.add(new Violation("", "must be a map with domain and descriptors"));
            return done(List.of());
        }
        fields("", root, ROOT_FIELDS);
        domain = text(root.get("domain"));
        if (domain == null || domain.isEmpty()) {
            violations.add(new Violation("domain", "is required: a file cannot have an empty domain"));
            return done(List.of());
        }
        List<DescriptorNode> nodes = descriptors("descriptors", root.get("descriptors"), domain + ".");
        return done(nodes);
    }

    private Translation done(List<DescriptorNode> nodes) {
        DescriptorDomain mapping = new DescriptorDomain(domain, nodes, 0);
        if (violations.isEmpty()) {
            judge(mapping);
        }
        if (!violations.isEmpty()) {
            return new Translation(domain, List.of(), new DescriptorDomain(domain, List.of(), 0), List.copyOf(notes), List.copyOf(violations));
        }
        return new Translation(domain, List.copyOf(rules), mapping, List.copyOf(notes), List.of());
    }

    /** The rules and the mapping as rules-service and every pod judge them, so nothing translated here is refused later. */
    private void judge(DescriptorDomain mapping) {
        RuleValidator ruleValidator = new RuleValidator();
        Map<String, Rule> byId = new LinkedHashMap<>();
        for (Rule rule : rules) {
            byId.put(rule.id(), rule);
            for (Violation v : ruleValidator.validate(rule)) {
                violations.add(new Violation("rule " + rule.id() + "." + v.field(), v.message()));
            }
        }
        if (mapping.descriptors().isEmpty()) {
            // envoyproxy/ratelimit serves a domain with no descriptors: every call is OK; so does a pod without a mapping
            return;
        }
        violations.addAll(new DescriptorValidator().validate(mapping, byId));
    }

    private List<DescriptorNode> descriptors(String at, Object list, String parentKey) {
        if (list == null) {
            return List.of();
        }
        if (!(list instanceof List<?> items)) {
            violations.add(new Violation(at, "must be a list of descriptors"));
            return List.of();
        }
        List<DescriptorNode> nodes = new ArrayList<>();
        Set<String> composite = new HashSet<>();
        for (int i = 0; i < items.size(); i++) {
            String here = at + "[" + i + "]";
            if (!(items.get(i) instanceof Map<?, ?> item)) {
                violations.add(new Violation(here, "must be a map"));
                continue;
            }
            descriptor(here, item, parentKey, composite).ifPresent(nodes::add);
        }
        return nodes;
    }

    private Optional<DescriptorNode> descriptor(String at, Map<?, ?> item, String parentKey, Set<String> composite) {
        fields(at, item, DESCRIPTOR_FIELDS);
        String key = text(item.get("key"));
        if (key == null || key.isEmpty()) {
            violations.add(new Violation(at + ".key", "is required: a descriptor cannot have an empty key"));
            return Optional.empty();
        }
        String value = text(item.get("value"));
        if (value != null && value.isEmpty()) {
            value = null;
        }
        String finalKey = value == null ? key : key + "_" + value;
        String fullKey = parentKey + finalKey;
        if (!composite.add(finalKey)) {
            violations.add(new Violation(at, "repeats the descriptor " + fullKey + " of a descriptor before it"));
        }
        boolean shadow = flag(at, item, "shadow_mode");
        boolean detailed = flag(at, item, "detailed_metric");
        boolean shareThreshold = flag(at, item, "share_threshold");
        if (shareThreshold && (value == null || value.indexOf('*') < 0)) {
            violations.add(new Violation(at + ".share_threshold", "can only be used with a wildcard value (one holding *), not on " + fullKey));
        }
        if (flag(at, item, "quota_mode")) {
            notes.add(new Note(at + ".quota_mode", "not mapped: " + fullKey + " is enforced as an ordinary limit. Tollgate checks a call's limits"
                    + " all or nothing, so a quota over its limit cannot let the rest of the call pass without spending it"));
        }
        if (flag(at, item, "value_to_metric")) {
            notes.add(new Note(at + ".value_to_metric", "not mapped: hits are counted per rule; detailed_metric counts them per value"));
        }
        if (item.get("metadata") != null) {
            notes.add(new Note(at + ".metadata", "not mapped: Tollgate answers no dynamic metadata"));
        }
        List<DescriptorNode> below = descriptors(at + ".descriptors", item.get("descriptors"), fullKey + ".");
        Object rateLimit = item.get("rate_limit");
        if (rateLimit == null) {
            if (below.isEmpty()) {
                notes.add(new Note(at, "not mapped: " + fullKey + " has no rate_limit and no descriptors, so it limits nothing"));
                return Optional.empty();
            }
            if (detailed) {
                notes.add(new Note(at + ".detailed_metric", "not mapped: " + fullKey + " has no rate_limit whose hits it could count"));
            }
            return Optional.of(new DescriptorNode(key, value, null, null, false, null, null, shareThreshold, false, below));
        }
        if (!(rateLimit instanceof Map<?, ?> limit)) {
            violations.add(new Violation(at + ".rate_limit", "must be a map"));
            return Optional.empty();
        }
        fields(at + ".rate_limit", limit, RATE_LIMIT_FIELDS);
        boolean unlimited = flag(at + ".rate_limit", limit, "unlimited");
        String name = text(limit.get("name"));
        if (name != null && name.isEmpty()) {
            name = null;
        }
        List<String> replaces = replaces(at + ".rate_limit.replaces", limit.get("replaces"), name);
        String unit = text(limit.get("unit"));
        Integer unitSeconds = unit == null ? null : UNIT_SECONDS.get(unit.toUpperCase(Locale.ROOT));
        if (unlimited) {
            if (unitSeconds != null) {
                violations.add(new Violation(at + ".rate_limit.unit", "should not be given when unlimited"));
            }
            if (shadow) {
                notes.add(new Note(at + ".shadow_mode", "not mapped: " + fullKey + " is unlimited, there is nothing to shadow"));
            }
            return Optional.of(new DescriptorNode(key, value, null, null, true, name, replaces, shareThreshold, false, below));
        }
        if (unitSeconds == null) {
            violations.add(new Violation(at + ".rate_limit.unit", "must be one of second, minute, hour, day, week, month, year"
                    + (unit == null ? "" : " (was " + quote(unit) + ")")));
            return Optional.empty();
        }
        Long perUnit = number(at + ".rate_limit.requests_per_unit", limit.get("requests_per_unit"));
        if (perUnit == null) {
            return Optional.empty();
        }
        if (perUnit < 1 || perUnit > Integer.MAX_VALUE) {
            violations.add(new Violation(at + ".rate_limit.requests_per_unit", "must be at least 1 and fit the rules' limit"
                    + " (a limit of 0 denies every call, which Tollgate has no rule for), was " + perUnit));
            return Optional.empty();
        }
        String id = ruleId(fullKey);
        int count = perUnit.intValue();
        // the largest cost the window can ever pay: a hits_addend above it is over the limit, as in envoyproxy/ratelimit
        rules.add(new Rule(id, domain, new Match(null, DESCRIPTOR_ROUTE + id), Identity.API_KEY, new Limit.FixedWindow(count, unitSeconds),
                shadow ? Mode.SHADOW : Mode.ENFORCE, FailMode.OPEN, count, 1));
        return Optional.of(new DescriptorNode(key, value, id, null, false, name, replaces, shareThreshold, detailed, below));
    }

    private List<String> replaces(String at, Object list, String name) {
        if (list == null) {
            return List.of();
        }
        if (!(list instanceof List<?> items)) {
            violations.add(new Violation(at, "must be a list of {name: ...}"));
            return List.of();
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            String here = at + "[" + i + "]";
            String replaced = items.get(i) instanceof Map<?, ?> entry ? text(entry.get("name")) : null;
            if (items.get(i) instanceof Map<?, ?> entry) {
                fields(here, entry, Set.of("name"));
            }
            if (replaced == null || replaced.isEmpty()) {
                violations.add(new Violation(here, "should not be an empty replaces entry: it needs a name"));
            } else if (replaced.equals(name)) {
                violations.add(new Violation(here, "should not name the descriptor itself"));
            } else {
                names.add(replaced);
            }
        }
        return names;
    }

    /**
     * The rule id of a descriptor path: the path itself when it is an id, else what of it an id can hold and a
     * digest of the whole, so two paths never share a rule (and a counter) and one path always names the same.
     */
    static String ruleId(String fullKey) {
        String id = NOT_IN_ID.matcher(fullKey).replaceAll("-");
        if (!id.isEmpty() && Character.isLetterOrDigit(id.charAt(0)) && id.equals(fullKey) && id.length() <= MAX_ID) {
            return id;
        }
        String digest = HexFormat.of().formatHex(sha256(fullKey), 0, 5);
        String kept = id.length() > MAX_ID - 11 ? id.substring(0, MAX_ID - 11) : id;
        return (kept.isEmpty() || !Character.isLetterOrDigit(kept.charAt(0)) ? "e" + kept : kept) + "-" + digest;
    }


    private void fields(String at, Map<?, ?> map, Set<String> known) {
        for (Object field : map.keySet()) {
            if (!(field instanceof String name) || !known.contains(name)) {
                violations.add(new Violation(at.isEmpty() ? String.valueOf(field) : at + "." + field, "is not a field envoyproxy/ratelimit knows here"));
            }
        }
    }

    private boolean flag(String at, Map<?, ?> map, String field) {
        Object value = map.get(field);
        if (value == null || value instanceof Boolean) {
            return Boolean.TRUE.equals(value);
        }
        violations.add(new Violation(at + "." + field, "must be true or false"));
        return false;
    }

    private Long number(String at, Object value) {
        if (value instanceof Number number && number.doubleValue() == Math.rint(number.doubleValue())) {
            // a YAML parser reads 18446744073709551621 as a BigInteger and 1e20 as a double, whose longValue()
            // is what is left of it (5, or Long.MAX_VALUE): beyond a long the number is refused, not wrapped
            if (Math.abs(number.doubleValue()) >= 0x1p63) {
                violations.add(new Violation(at, "must be a whole number that fits the rules' limit (at most " + Integer.MAX_VALUE + ")"));
                return null;
            }
            return number.longValue();
        }
        violations.add(new Violation(at, value == null ? "is required" : "must be a whole number"));
        return null;
    }

    /** A scalar as text, as YAML may read {@code value: 80} as a number; null when absent or not a scalar. */
    private static String text(Object value) {
        if (value instanceof String || value instanceof Number || value instanceof Boolean) {
            return value.toString();
        }
        return null;
    }

    private static String quote(String text) {
        return "\"" + (text.length() > 40 ? text.substring(0, 40) + "..." : text) + "\"";
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }
}
