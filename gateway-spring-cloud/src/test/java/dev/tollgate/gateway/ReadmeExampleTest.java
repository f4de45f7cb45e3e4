package dev.tollgate.gateway;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's minimal gateway is the file AttributesIT runs, word for word. */
class ReadmeExampleTest {

    @Test
    void theReadmeQuotesTheApplicationYmlTheTestsRun() throws IOException {
        String example = Files.readString(Path.of("src/test/resources/gateway-example.yml"));
        String readme = Files.readString(Path.of("../README.md"));
        assertThat(readme).contains("```yaml\n" + example + "```\n");
    }
}
