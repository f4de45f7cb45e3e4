package dev.tollgate.common.wire;

import dev.tollgate.common.validation.Violation;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamFactory;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.dataformat.yaml.YAMLFactory;
import tools.jackson.dataformat.yaml.YAMLParser;
import tools.jackson.dataformat.yaml.YAMLReadFeature;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A YAML or JSON document as a plain tree: maps, lists, strings, numbers, booleans and nulls, nothing else,
 * for readers that judge a file field by field ({@link dev.tollgate.common.envoy.EnvoyConfig}, the rules-as-code
 * files). Built token by token rather than by data binding, so that what would be read wrongly is refused with
 * the place it is at:
 *
 * <ul>
 *   <li>A YAML alias ({@code *name}) is refused. Jackson's parser does not expand one (it hands over the anchor's
 *       name as a string, which would become a value nobody wrote), and expanding them is how a few hundred bytes
 *       become gigabytes; a configuration file can write its values out.</li>
 *   <li>A key given twice in one map is refused, as envoyproxy/ratelimit's YAML decoder refuses it, rather
 *       than the last one silently winning.</li>
 *   <li>Nesting is bounded by the parser ({@link #MAX_DEPTH}), so a deep document cannot exhaust the stack
 *       of this recursive reader, and a second document after the first is refused rather than dropped.</li>
 * </ul>
 * The input's size is bounded before it gets here (a service's request body limit, the CLI's file limit). Only
 * the streaming parsers are used, so a reader needs jackson-core and, for YAML, jackson-dataformat-yaml.
 */
public final class PlainTree {

    /**
     * Parser levels. A descriptor level is three (a map in a list in a map), so this is far past the 8
     * descriptor levels a mapping may have, which the validator refuses naming the field.
     */
    public static final int MAX_DEPTH = 96;

    private static final int MAX_MESSAGE = 200;

    private static final StreamReadConstraints BOUNDED = StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build();

    private static final YAMLFactory YAML = YAMLFactory.builder()
            .streamReadConstraints(BOUNDED)
            // "descriptors:" with nothing after it is no descriptors, as envoyproxy/ratelimit's decoder reads it, not ""
            .enable(YAMLReadFeature.EMPTY_STRING_AS_NULL)
            // a key twice is refused below, with the path to it, rather than by the parser, which names only the key
            .disable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(BOUNDED)
            .disable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    /**
     * A document read, or why not: {@code unreadable} when it is not YAML (JSON) at all, the parser's words with
     * the line; else {@code violations} for what it holds that is refused here (aliases, keys twice, a second
     * document, nothing at all), each at its path; else the tree.
     */
    public record Parsed(Object tree, String unreadable, List<Violation> violations) {

        public Parsed {
            violations = List.copyOf(violations);
        }

        public boolean ok() {
            return unreadable == null && violations.isEmpty();
        }

        /** The one problem of an unreadable document, or the refusals, as violations of the whole file. */
        public List<Violation> problems() {
            return unreadable == null ? violations : List.of(new Violation("", unreadable));
        }
    }

    private PlainTree() {
    }

    /** The YAML document in {@code body}. */
    public static Parsed yaml(byte[] body) {
        return read(YAML, body, "YAML", "holds more than one YAML document (---): send one file, of one domain");
    }

    /** The JSON value in {@code body}. */
    public static Parsed json(byte[] body) {
        return read(JSON, body, "JSON", "holds more than one JSON value: send one object");
    }

    private static Parsed read(TokenStreamFactory factory, byte[] body, String format, String second) {
        if (body == null || body.length == 0) {
            return empty();
        }
        List<Violation> violations = new ArrayList<>();
        Object tree;
        try (JsonParser parser = factory.createParser(ObjectReadContext.empty(), body)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                return empty();
            }
            tree = value(parser, first, "", violations);
            if (parser.nextToken() != null) {
                violations.add(new Violation("", second));
            }
        } catch (JacksonException e) {
            return new Parsed(null, "is not " + format + " that can be read" + at(e.getLocation()) + ": " + shortened(e.getOriginalMessage()),
                    List.of());
        }
        return new Parsed(violations.isEmpty() ? tree : null, null, violations);
    }

    private static Object value(JsonParser parser, JsonToken token, String at, List<Violation> violations) {
        boolean yaml = parser instanceof YAMLParser;
        if (yaml && ((YAMLParser) parser).isCurrentAlias()) {
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
                return yaml && "~".equals(parser.getString()) ? null : parser.getString();
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
                // !!binary and the like: nothing a configuration file holds
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

    private static Parsed empty() {
        return new Parsed(null, null, List.of(new Violation("", "is empty: send the file itself")));
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
