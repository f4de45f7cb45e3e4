package dev.tollgate.rules.envoy;

import dev.tollgate.common.validation.Violation;
import dev.tollgate.rules.problem.InvalidEnvoyConfigException;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class YamlTreeTest {

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

        InvalidEnvoyConfigException refused = refused(deep);

        assertThat(refused.violations().get(0).message()).contains("nesting depth");
        assertThat(read("[".repeat(YamlTree.MAX_DEPTH) + "]".repeat(YamlTree.MAX_DEPTH))).isInstanceOf(List.class);
    }

    @Test
    void noDocumentIsAnEmptyFile() {
        assertThat(refused("").violations().get(0).message()).contains("empty");
        assertThat(refused("# only a comment\n").violations().get(0).message()).contains("empty");
    }

    @Test
    void aParserErrorSaysWhereAndIsBounded() {
        InvalidEnvoyConfigException refused = refused("domain: d\ndescriptors: [ {key: " + "x".repeat(100_000) + "\n");

        String message = refused.violations().get(0).message();
        assertThat(message).contains("line ");
        assertThat(message.length()).isLessThan(400);
    }

    private static Object read(String yaml) {
        return YamlTree.read(yaml.getBytes(StandardCharsets.UTF_8));
    }

    private static InvalidEnvoyConfigException refused(String yaml) {
        return catchThrowableOfType(InvalidEnvoyConfigException.class, () -> read(yaml));
    }

    private static List<String> fields(String yaml) {
        return refused(yaml).violations().stream().map(Violation::field).toList();
    }
}
