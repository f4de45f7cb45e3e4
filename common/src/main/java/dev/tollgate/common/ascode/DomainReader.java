package dev.tollgate.common.ascode;

import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.descriptor.DescriptorNode;
import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Algorithm;
import dev.tollgate.common.rule.Counting;
import dev.tollgate.common.rule.FailMode;
import dev.tollgate.common.rule.Identity;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Mode;
import dev.tollgate.common.rule.RuleFields;
import dev.tollgate.common.validation.RuleValidator;
import dev.tollgate.common.validation.Violation;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Reads a file's plain tree into what it says, as strictly as the API reads JSON: a field it does not know, text
 * where a number belongs, a number where text belongs, a fraction for a whole number is refused, never guessed at;
 * unlike the API it goes on after the first, so that one answer lists every problem of the file. Whether what it
 * says can be served is {@link DomainFile}'s question, through the shared validators.
 */
final class DomainReader {

    /** A rule's fields at their defaults, which the canonical form leaves out: they come from one place, {@link RuleFields}. */
    static final RuleFields DEFAULTS = new RuleFields(null, null, null, null, Algorithm.TOKEN_BUCKET, null, null, null, null, null,
            null, null, null, 0);

    private static final Set<String> ROOT = Set.of("domain", "rules", "descriptors", "overrides");
    private static final Set<String> RULE = Set.of("id", "domain", "match", "identity", "algorithm", "rate_per_s", "period_s",
            "burst", "limit", "window_s", "mode", "fail_mode", "max_cost",
            "counting");
    private static final Set<String> MATCH = Set.of("plan", "route");
    private static final Set<String> NODE = Set.of("key", "value", "rule", "limit_key", "unlimited", "name", "replaces",
            "share_threshold", "detailed_metric", "descriptors");
    private static final Set<String> OVERRIDE = Set.of("account_id", "rule_id", "rate_per_s", "burst", "expires_at", "reason");

    /** What a file says, before it is judged. {@code descriptors} is null when it has none. */
    record Content(String domain, List<RuleFields> rules, DescriptorDomain descriptors, List<WrittenOverride> overrides) {
    }

    /** An override as written; its numbers are boxed, so that a missing one is reported rather than read as 0. */
    record WrittenOverride(String accountId, String ruleId, Integer ratePerS, Integer burst, Instant expiresAt, String reason) {

        AccountOverride toOverride() {
            return new AccountOverride(accountId, ruleId, ratePerS, burst, expiresAt, reason);
        }
    }

    private final List<Violation> violations = new ArrayList<>();

    List<Violation> violations() {
        return violations;
    }

    /** What the file says; null when it is not a map with a usable domain, which everything else is judged in. */
    Content read(Object tree) {
        if (!(tree instanceof Map<?, ?> root)) {
            violations.add(new Violation("", "must be a map: domain, and its rules, descriptors and overrides"));
            return null;
        }
        known("", root, ROOT, "a domain file, which holds domain, rules, descriptors and overrides");
        String domain = text("domain", root.get("domain"));
        boolean usable = domain != null && !domain.isBlank() && RuleValidator.isStorableText(domain, RuleValidator.MAX_DOMAIN);
        if (!usable) {
            violations.add(new Violation("domain", domain == null || domain.isBlank() ? "is required: the domain this file is the whole configuration of"
                    : "must be at most " + RuleValidator.MAX_DOMAIN + " characters, without control characters"));
        }
        List<RuleFields> rules = new ArrayList<>();
        List<?> ruleItems = list("rules", root.get("rules"));
        for (int i = 0; i < ruleItems.size(); i++) {
            RuleFields rule = rule("rules[" + i + "]", ruleItems.get(i), domain);
            if (rule != null) {
                rules.add(rule);
            }
        }
        List<DescriptorNode> nodes = nodes("descriptors", root.get("descriptors"));
        List<WrittenOverride> overrides = new ArrayList<>();
        List<?> overrideItems = list("overrides", root.get("overrides"));
        for (int i = 0; i < overrideItems.size(); i++) {
            WrittenOverride override = override("overrides[" + i + "]", overrideItems.get(i));
            if (override != null) {
                overrides.add(override);
            }
        }
        if (!usable) {
            return null;
        }
        return new Content(domain, rules, nodes.isEmpty() ? null : new DescriptorDomain(domain, nodes, 0), overrides);
    }

    private RuleFields rule(String at, Object item, String domain) {
        if (!(item instanceof Map<?, ?> map)) {
            violations.add(new Violation(at, "must be a map of a rule's fields"));
            return null;
        }
        known(at, map, RULE, "a rule");
        String own = text(at + ".domain", map.get("domain"));
        if (own != null && !own.equals(domain)) {
            violations.add(new Violation(at + ".domain", "is another domain than the file's: a file holds one domain's rules"
                    + " (leave domain out of a rule, it is the file's)"));
        }
        Match match = null;
        Object written = map.get("match");
        if (written instanceof Map<?, ?> fields) {
            known(at + ".match", fields, MATCH, "a match, which takes plan and route");
            match = new Match(text(at + ".match.plan", fields.get("plan")), text(at + ".match.route", fields.get("route")));
        } else if (written != null) {
            violations.add(new Violation(at + ".match", "must be a map of plan and route"));
        }
        return new RuleFields(text(at + ".id", map.get("id")), domain, match,
                enumOf(at + ".identity", map.get("identity"), Identity.class),
                enumOf(at + ".algorithm", map.get("algorithm"), Algorithm.class),
                integer(at + ".rate_per_s", map.get("rate_per_s")),
                integer(at + ".period_s", map.get("period_s")),
                integer(at + ".burst", map.get("burst")),
                integer(at + ".limit", map.get("limit")),
                integer(at + ".window_s", map.get("window_s")),
                enumOf(at + ".mode", map.get("mode"), Mode.class),
                enumOf(at + ".fail_mode", map.get("fail_mode"), FailMode.class),
                integer(at + ".max_cost", map.get("max_cost")),
                enumOf(at + ".counting", map.get("counting"), Counting.class),
                0);
    }

    private List<DescriptorNode> nodes(String at, Object value) {
        List<DescriptorNode> nodes = new ArrayList<>();
        List<?> items = list(at, value);
        for (int i = 0; i < items.size(); i++) {
            String here = at + "[" + i + "]";
            if (!(items.get(i) instanceof Map<?, ?> map)) {
                violations.add(new Violation(here, "must be a map of a descriptor's fields"));
                continue;
            }
            known(here, map, NODE, "a descriptor");
            List<String> replaces = new ArrayList<>();
            List<?> replaced = list(here + ".replaces", map.get("replaces"));
            for (int r = 0; r < replaced.size(); r++) {
                replaces.add(text(here + ".replaces[" + r + "]", replaced.get(r)));
            }
            nodes.add(new DescriptorNode(text(here + ".key", map.get("key")), text(here + ".value", map.get("value")),
                    text(here + ".rule", map.get("rule")), text(here + ".limit_key", map.get("limit_key")),
                    flag(here + ".unlimited", map.get("unlimited")), text(here + ".name", map.get("name")), replaces,
                    flag(here + ".share_threshold", map.get("share_threshold")), flag(here + ".detailed_metric", map.get("detailed_metric")),
                    nodes(here + ".descriptors", map.get("descriptors"))));
        }
        return nodes;
    }

    private WrittenOverride override(String at, Object item) {
        if (!(item instanceof Map<?, ?> map)) {
            violations.add(new Violation(at, "must be a map of an override's fields"));
            return null;
        }
        known(at, map, OVERRIDE, "an override");
        return new WrittenOverride(text(at + ".account_id", map.get("account_id")), text(at + ".rule_id", map.get("rule_id")),
                integer(at + ".rate_per_s", map.get("rate_per_s")), integer(at + ".burst", map.get("burst")),
                instant(at + ".expires_at", map.get("expires_at")), text(at + ".reason", map.get("reason")));
    }

    private void known(String at, Map<?, ?> map, Set<String> fields, String what) {
        for (Object name : map.keySet()) {
            if (!fields.contains(name)) {
                String field = at.isEmpty() ? String.valueOf(name) : at + "." + name;
                String hint = "version".equals(name) ? " (the store keeps versions; a file has none)" : "";
                violations.add(new Violation(field, "is not a field of " + what + hint));
            }
        }
    }

    private String text(String at, Object value) {
        if (value == null || value instanceof String) {
            return (String) value;
        }
        violations.add(new Violation(at, "must be text" + (value instanceof Number || value instanceof Boolean
                ? " (quote it: \"" + value + "\")" : ", not a " + (value instanceof List ? "list" : "map"))));
        return null;
    }

    private Integer integer(String at, Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof Integer number) {
            return number;
        }
        if (value instanceof Long || value instanceof BigInteger) {
            violations.add(new Violation(at, "is out of range: " + value));
        } else if (value instanceof Number number) {
            BigDecimal decimal = new BigDecimal(number.toString());
            violations.add(new Violation(at, decimal.stripTrailingZeros().scale() <= 0
                    ? "must be a whole number, written without a fraction" : "must be a whole number, was " + value));
        } else {
            violations.add(new Violation(at, "must be a whole number" + (value instanceof String ? " (not quoted)" : "")));
        }
        return null;
    }

    private boolean flag(String at, Object value) {
        if (value == null || value instanceof Boolean) {
            return Boolean.TRUE.equals(value);
        }
        violations.add(new Violation(at, "must be true or false"));
        return false;
    }

    private <E extends Enum<E>> E enumOf(String at, Object value, Class<E> type) {
        if (value == null) {
            return null;
        }
        if (value instanceof String text) {
            for (E constant : type.getEnumConstants()) {
                // case-insensitive, as the API reads an enum
                if (constant.name().equalsIgnoreCase(text)) {
                    return constant;
                }
            }
        }
        violations.add(new Violation(at, "must be one of " + Arrays.stream(type.getEnumConstants()).map(DomainReader::wire)
                .collect(Collectors.joining(", "))));
        return null;
    }

    private Instant instant(String at, Object value) {
        String text = text(at, value);
        if (text == null) {
            return null;
        }
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            violations.add(new Violation(at, "must be an ISO-8601 instant such as \"2030-01-01T00:00:00Z\""));
            return null;
        }
    }

    private List<?> list(String at, Object value) {
        if (value == null) {
            return List.of();
        }
        if (value instanceof List<?> list) {
            return list;
        }
        violations.add(new Violation(at, "must be a list"));
        return List.of();
    }

    /** An enum value as the wire format writes it. */
    static String wire(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }
}
