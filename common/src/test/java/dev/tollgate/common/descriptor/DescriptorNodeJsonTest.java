package dev.tollgate.common.descriptor;

import dev.tollgate.common.wire.WireFormat;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class DescriptorNodeJsonTest {

    private static final JsonMapper STRICT = WireFormat.strict(WireFormat.configure(JsonMapper.builder())).build();

    @Test
    void aNodeWrittenWithoutItsUnsetFlagsReadsBackStrictly() {
        DescriptorNode plain = new DescriptorNode("account", null, "r1", null, List.of());

        String written = STRICT.writeValueAsString(plain);

        assertThat(written).doesNotContain("unlimited", "share_threshold", "detailed_metric", "replaces");
        assertThat(STRICT.readValue(written, DescriptorNode.class)).isEqualTo(plain);
    }

    @Test
    void aNodeWithEveryFlagReadsBackAsWritten() {
        DescriptorNode full = new DescriptorNode("path", "/files/*", null, null, true, "files", List.of("default"), true, true,
                List.of(new DescriptorNode("user", null, "r2", "path", List.of())));

        assertThat(STRICT.readValue(STRICT.writeValueAsString(full), DescriptorNode.class)).isEqualTo(full);
    }
}
