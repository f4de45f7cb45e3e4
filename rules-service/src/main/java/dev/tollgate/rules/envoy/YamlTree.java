package dev.tollgate.rules.envoy;

import dev.tollgate.common.validation.Violation;
import dev.tollgate.rules.problem.InvalidEnvoyConfigException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.dataformat.yaml.YAMLFactory;
import tools.jackson.dataformat.yaml.YAMLMapper;
import tools.jackson.dataformat.yaml.YAMLParser;
import tools.jackson.dataformat.yaml.YAMLReadFeature;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A YAML document as the plain tree {@link dev.tollgate.common.envoy.EnvoyConfig} reads: maps, lists,
 * strings, numbers, booleans and nulls, nothing else. Built token by token rather than by data binding, so
 * that what would be read wrongly is refused with the place it is at:
 *
 * <ul>
 *   <li>An alias ({@code *name}) is refused. Jackson's parser does not expand one (it hands over the anchor's
 *       name as a string, which would become a descriptor value nobody wrote), and expanding them is how a
 *       few hundred bytes become gigabytes; a configuration file can write its values out.</li>
 *   <li>A key given twice in one map is refused, as envoyproxy/ratelimit's YAML decoder refuses it, rather
 *       than the last one silently winning.</li>
 *   <li>Nesting is bounded by the parser ({@link #MAX_DEPTH}), so a deep document cannot exhaust the stack
 *       of this recursive reader, and a second document after the first is refused rather than dropped.</li>
 * </ul>
 * The body's size is bounded before it gets here, by the service's request body limit.
 */
final class YamlTree {

    /**
     * Parser levels. A descriptor level is three (a map in a list in a map), so this is far past the 8
     * descriptor levels a mapping may have, which the validator refuses naming the field.
     */
    static final int MAX_DEPTH = 96;

    private static final int MAX_MESSAGE = 200;

    private static final YAMLMapper YAML = YAMLMapper.builder(YAMLFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
                    // "descriptors:" with nothing after it is no descriptors, as envoyproxy/ratelimit's decoder reads it, not ""
                    .enable(YAMLReadFeature.EMPTY_STRING_AS_NULL)
                    .build())
            // a key twice is refused below, with the path to it, rather than by the parser, which names only the key
            .disable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private YamlTree() {
    }

    /** The document in {@code body}; a body with no document is refused as an empty file. */
    static Object read(byte[] body) {
        if (body == null || body.length == 0) {
            throw empty();
        }
        List<Violation> violations = new ArrayList<>();
        Object tree;
        try (JsonParser parser = YAML.createParser(body)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                throw empty();
            }
            tree = value(parser, first, "", violations);
            if (parser.nextToken() != null) {
                violations.add(new Violation("", "holds more than one YAML document (---): send one configuration file, of one domain"));
            }
        } catch (JacksonException e) {
            throw InvalidEnvoyConfigException.of("", "is not YAML that can be read" + at(e.getLocation()) + ": " + shortened(e.getOriginalMessage()));
        }
        if (!violations.isEmpty()) {
            throw new InvalidEnvoyConfigException(violations);
        }
        return tree;
    }

    private static Object value(JsonParser parser, JsonToken token, String at, List<Violation> violations) {
        if (parser instanceof YAMLParser yaml && yaml.isCurrentAlias()) {
            violations.add(new Violation(at, "is an alias (*" + shortened(parser.getString()) + "): aliases are not read here;"
                    + " write the value out"));
            return null;
        }
        switch (token) {
            case START_OBJECT:
                return map(parser, at, violations);
            case START_ARRAY:
                return list(parser, at, violations);
            case VALUE_STRING:
                // a plain ~ is YAML's null, as envoyproxy/ratelimit's decoder reads it; Jackson's parser hands it
                // over as text and cannot say whether it was quoted, and a value of one quoted tilde is far rarer
                return "~".equals(parser.getString()) ? null : parser.getString();
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                return parser.getNumberValue();
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            case VALUE_NULL:
                return null;
            default:
                // !!binary and the like: nothing an envoyproxy/ratelimit file holds
                violations.add(new Violation(at, "is a value of a kind a configuration file does not hold (" + token + ")"));
                parser.skipChildren();
                return null;
        }
    }

    private static Map<String, Object> map(JsonParser parser, String at, List<Violation> violations) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (JsonToken token = parser.nextToken(); token != null && token != JsonToken.END_OBJECT; token = parser.nextToken()) {
            String name = parser.currentName();
            String here = at.isEmpty() ? name : at + "." + name;
            if (parser instanceof YAMLParser yaml && yaml.isCurrentAlias()) {
                violations.add(new Violation(here, "is an alias used as a key: aliases are not read here; write the key out"));
            }
            Object value = value(parser, parser.nextToken(), here, violations);
            if (map.containsKey(name)) {
                violations.add(new Violation(here, "is given twice in one map"));
            }
            map.put(name, value);
        }
        return map;
    }

    private static List<Object> list(JsonParser parser, String at, List<Violation> violations) {
        List<Object> list = new ArrayList<>();
        for (JsonToken token = parser.nextToken(); token != null && token != JsonToken.END_ARRAY; token = parser.nextToken()) {
            list.add(value(parser, token, at + "[" + list.size() + "]", violations));
        }
        return list;
    }

    private static InvalidEnvoyConfigException empty() {
        return InvalidEnvoyConfigException.of("", "is empty: send the envoyproxy/ratelimit configuration file as the body");
    }

    private static String at(TokenStreamLocation location) {
        if (location == null || location.getLineNr() < 1) {
            return "";
        }
        return " at line " + location.getLineNr() + ", column " + location.getColumnNr();
    }

    /** The first line of a parser's message, bounded: it may quote the file, and the file may be 64 KiB on one line. */
    private static String shortened(String message) {
        if (message == null) {
            return "malformed";
        }
        String line = message.lines().findFirst().orElse("malformed").strip();
        return line.length() > MAX_MESSAGE ? line.substring(0, MAX_MESSAGE) + "..." : line;
    }
}
