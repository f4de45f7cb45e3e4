package dev.tollgate.check.config;

import dev.tollgate.testsupport.config.ConfigurationReference;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/configuration/check-service.md names every tollgate.* property the service declares. */
class ConfigurationReferenceTest {

    @Test
    void documentsEveryDeclaredProperty() {
        assertThat(ConfigurationReference.undocumented("check-service")).isEmpty();
    }
}
