package dev.tollgate.common.wire;

import dev.tollgate.common.validation.Violation;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class PlainTreeTest {

    @Test
    void readsADocumentAsPlainMapsListsAndScalars() {
        Object tree = read("""
                domain: d
                descriptors:
                  - key: remote_address
                    value: 10.0.0.1
                    shadow_mode: true
                    rate_limit: {unit: second, requests_per_unit: 5, big: 18446744073709551621, half: 0.5, none: ~, nil: null, blank: }
                """);

        Map<?, ?> root = (Map<?, ?>) tree;
        Map<?, ?> descriptor = (Map<?, ?>) ((List<?>) root.get("descriptors")).get(0);
        Map<?, ?> limit = (Map<?, ?>) descriptor.get("rate_limit");
        assertThat(descriptor.get("value")).isEqualTo("10.0.0.1");
        assertThat(descriptor.get("shadow_mode")).isEqualTo(Boolean.TRUE);
        assertThat(limit.get("requests_per_unit")).isEqualTo(5);
        assertThat(limit.get("big")).isEqualTo(new BigInteger("18446744073709551621"));
        assertThat(limit.get("half")).isEqualTo(0.5);
        assertThat(limit.keySet()).map(String::valueOf).contains("none", "nil", "blank");
        assertThat(limit.get("none")).isNull();
        assertThat(limit.get("nil")).isNull();
        assertThat(limit.get("blank")).isNull();
    }

    @Test
    void anAliasIsRefusedWhereItIsRatherThanReadAsItsAnchorsName() {
        // Jackson's parser hands an alias over as the anchor's name: "b" would become a value nobody wrote
        assertThat(fields("a: &x 1\nb: *x\nc: [*x]\n")).containsExactly("b", "c[0]");
    }

    @Test
    void aKeyTwiceIsRefusedWithItsPath() {
        assertThat(fields("descriptors:\n  - key: a\n    key: b\n")).containsExactly("descriptors[0].key");
    }

    @Test
    void aSecondDocumentIsRefusedNotDropped() {
        assertThat(fields("domain: a\n---\ndomain: b\n")).containsExactly("");
    }

    @Test
    void nestingPastTheBoundIsRefusedBeforeTheReaderRecursesThatDeep() {
        String deep = "[".repeat(100_000) + "]".repeat(100_000);

        assertThat(PlainTree.yaml(deep.getBytes(StandardCharsets.UTF_8)).unreadable()).contains("nesting depth");
        assertThat(PlainTree.json(deep.getBytes(StandardCharsets.UTF_8)).unreadable()).contains("nesting depth");
        assertThat(read("[".repeat(PlainTree.MAX_DEPTH) + "]".repeat(PlainTree.MAX_DEPTH))).isInstanceOf(List.class);
    }

    @Test
    void noDocumentIsAnEmptyFile() {
        assertThat(refused("").get(0).message()).contains("empty");
        assertThat(refused("# only a comment\n").get(0).message()).contains("empty");
        assertThat(PlainTree.json(new byte[0]).violations().get(0).message()).contains("empty");
    }

    @Test
    void aParserErrorSaysWhereAndIsBounded() {
        String message = PlainTree.yaml(("domain: d\ndescriptors: [ {key: " + "x".repeat(100_000) + "\n").getBytes(StandardCharsets.UTF_8))
                .unreadable();

        assertThat(message).contains("line ");
        assertThat(message.length()).isLessThan(400);
    }

    @Test
    void readsJsonStrictlyWithTheSameRefusals() {
        PlainTree.Parsed parsed = PlainTree.json("{\"a\": [1, \"~\", null, true], \"a\": 2}".getBytes(StandardCharsets.UTF_8));

        assertThat(parsed.violations()).extracting(Violation::field).containsExactly("a");
        assertThat(PlainTree.json("{\"a\": [\"~\"]}".getBytes(StandardCharsets.UTF_8)).tree()).isEqualTo(Map.of("a", List.of("~")));
        assertThat(PlainTree.json("{} {}".getBytes(StandardCharsets.UTF_8)).violations()).extracting(Violation::field).containsExactly("");
        assertThat(PlainTree.json("a: 1".getBytes(StandardCharsets.UTF_8)).unreadable()).startsWith("is not JSON");
    }

    private static Object read(String yaml) {
        PlainTree.Parsed parsed = PlainTree.yaml(yaml.getBytes(StandardCharsets.UTF_8));
        assertThat(parsed.ok()).as(parsed.toString()).isTrue();
        return parsed.tree();
    }

    private static List<Violation> refused(String yaml) {
        PlainTree.Parsed parsed = PlainTree.yaml(yaml.getBytes(StandardCharsets.UTF_8));
        assertThat(parsed.unreadable()).isNull();
        return parsed.violations();
    }

    private static List<String> fields(String yaml) {
        return refused(yaml).stream().map(Violation::field).toList();
    }
}
