package dev.tollgate.gateway;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/gateways.md's minimal gateway is the file AttributesIT runs, word for word. */
class DocsExampleTest {

    @Test
    void theGatewaysDocQuotesTheApplicationYmlTheTestsRun() throws IOException {
        String example = Files.readString(Path.of("src/test/resources/gateway-example.yml"));
        String doc = Files.readString(Path.of("../docs/gateways.md"));
        assertThat(doc).contains("```yaml\n" + example + "```\n");
    }
}
