package dev.tollgate.check;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class CheckServiceApplicationTest {

    /**
     * Spring Boot ignores an excluded name that is not on the class path: after an upgrade that renamed or
     * moved one, the auto-configuration would come back unnoticed.
     */
    @Test
    void leavesOutOnlyAutoConfigurationsOnItsClassPath() {
        List<String> candidates = new ArrayList<>();
        ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()).forEach(candidates::add);

        assertThat(CheckServiceApplication.LEFT_OUT).isNotEmpty();
        assertThat(candidates).contains(CheckServiceApplication.LEFT_OUT);
    }
}
