package dev.tollgate.check.rules;

import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Rule;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RulesFileTest {

    @TempDir
    Path dir;

    @Test
    void readsTheDesignsPlansWithEachAlgorithmsOwnNumbers() {
        assertThat(RulesFile.read(Path.of("src/test/resources/rules-test.yml")))
                .extracting(Rule::id, Rule::limit)
                .contains(
                        Tuple.tuple("growth-global", new Limit.TokenBucket(100, 1, 200)),
                        Tuple.tuple("login-ip", new Limit.SlidingLog(5, 60)),
                        Tuple.tuple("free-daily", new Limit.FixedWindow(10_000, 86_400)));
    }

    @Test
    void refusesARuleWithAFieldOfAnotherAlgorithmNamingIt() throws IOException {
        Path file = write("""
                rules:
                  - id: free-global
                    domain: public-api
                    match: { plan: free }
                    algorithm: token_bucket
                    rate_per_s: 10
                    burst: 20
                    window_s: 60
                """);

        assertThatThrownBy(() -> RulesFile.read(file))
                .hasMessageContaining("rules[0] (free-global) is invalid")
                .hasMessageContaining("window_s: is not a field of token_bucket");
    }

    @Test
    void refusesARuleWithoutItsAlgorithmsNumbersNamingTheField() throws IOException {
        Path file = write("""
                rules:
                  - id: login-ip
                    domain: auth
                    match: { route: /login }
                    algorithm: sliding_log
                    limit: 5
                """);

        assertThatThrownBy(() -> RulesFile.read(file)).hasMessageContaining("window_s: is required for sliding_log");
    }

    private Path write(String yaml) throws IOException {
        Path file = dir.resolve("rules.yml");
        Files.writeString(file, yaml);
        return file;
    }
}
