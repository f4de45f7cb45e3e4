package dev.tollgate.check.rules;

import dev.tollgate.common.rule.Limit;
import dev.tollgate.limiter.rules.DescriptorBook;
import dev.tollgate.limiter.rules.SnapshotRuleBook;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** A directory of envoyproxy/ratelimit files: read at start, followed as it changes, its last good content kept when a change is bad. */
class EnvoyConfigDirectoryTest {

    private static final String GOOD = """
            domain: api
            descriptors:
              - key: account
                rate_limit: { unit: minute, requests_per_unit: 10 }
            """;

    @TempDir
    Path dir;

    private final SnapshotRuleBook rules = new SnapshotRuleBook(Clock.systemUTC(), "test", 1.0);
    private final DescriptorBook descriptors = new DescriptorBook();
    private final MeterRegistry meters = new SimpleMeterRegistry();
    private EnvoyConfigDirectory directory;

    @AfterEach
    void close() {
        if (directory != null) {
            directory.close();
        }
    }

    private EnvoyConfigDirectory start(Duration interval) {
        directory = EnvoyConfigDirectory.watching(dir, interval, rules, descriptors, meters);
        directory.start();
        return directory;
    }

    private Limit limitOfAccounts() {
        return rules.find("api", "api.account", "acme").limit();
    }

    private double loads(String outcome) {
        return meters.get("tollgate.envoy.config.loads").tag("outcome", outcome).counter().count();
    }

    @Test
    void theFilesAreThePodsRulesAndMappingsFromTheStart() throws IOException {
        Files.writeString(dir.resolve("api.yaml"), GOOD);
        start(Duration.ofHours(1));

        assertThat(rules.loaded()).isTrue();
        assertThat(limitOfAccounts()).isEqualTo(new Limit.FixedWindow(10, 60));
        assertThat(descriptors.resolve("api", List.of("account"), List.of("acme"))).contains(new DescriptorBook.Limited("api.account", "acme"));
        assertThat(meters.get("tollgate.envoy.config.domains").gauge().value()).isEqualTo(1);
    }

    @Test
    void aChangedFileIsAppliedByThePoller() throws IOException {
        Files.writeString(dir.resolve("api.yaml"), GOOD);
        start(Duration.ofMillis(100));
        Files.writeString(dir.resolve("api.yaml"), GOOD.replace("10", "20"));

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(limitOfAccounts()).isEqualTo(new Limit.FixedWindow(20, 60)));
        assertThat(loads("applied")).isEqualTo(2);
    }

    @Test
    void aBadChangeIsRefusedWholeOnceAndTheLastGoodConfigurationStays() throws IOException {
        Files.writeString(dir.resolve("api.yaml"), GOOD);
        start(Duration.ofHours(1));
        Files.writeString(dir.resolve("api.yaml"), GOOD.replace("10", "20"));
        Files.writeString(dir.resolve("broken.yaml"), "domain: other\ndescriptors:\n  - key: k\n    rate_limit: { unit: fortnight, requests_per_unit: 1 }\n");

        directory.reload();
        directory.reload();

        assertThat(limitOfAccounts()).as("neither file of the bad change is applied").isEqualTo(new Limit.FixedWindow(10, 60));
        assertThat(loads("refused")).as("a bad file left in place is counted once").isEqualTo(1);

        Files.delete(dir.resolve("broken.yaml"));
        directory.reload();
        assertThat(limitOfAccounts()).isEqualTo(new Limit.FixedWindow(20, 60));
        assertThat(loads("applied")).isEqualTo(2);
    }

    @Test
    void twoFilesOfOneDomainUnreadableYamlAndHugeFilesAreRefused() throws IOException {
        Files.writeString(dir.resolve("api.yaml"), GOOD);
        start(Duration.ofHours(1));
        for (String bad : List.of("twin", "yaml", "huge")) {
            Path file = dir.resolve(bad + ".yml");
            switch (bad) {
                case "twin" -> Files.writeString(file, GOOD);
                case "yaml" -> Files.writeString(file, "domain: [unclosed\n");
                default -> Files.write(file, new byte[(int) EnvoyConfigDirectory.MAX_FILE_BYTES + 1]);
            }
            EnvoyConfigDirectory.Read read = EnvoyConfigDirectory.read(dir);
            assertThat(read.problems()).as(bad).singleElement().asString().startsWith(bad + ".yml: ");
            directory.reload();
            assertThat(limitOfAccounts()).isEqualTo(new Limit.FixedWindow(10, 60));
            Files.delete(file);
        }
        assertThat(loads("refused")).isEqualTo(3);
    }

    @Test
    void aPodWithADirectoryItCannotServeDoesNotStart() throws IOException {
        Files.writeString(dir.resolve("api.yaml"), GOOD.replace("minute", "fortnight"));

        assertThatThrownBy(() -> start(Duration.ofHours(1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("api.yaml: descriptors[0].rate_limit.unit: must be one of second, minute, hour, day, week, month, year (was \"fortnight\")");
        assertThat(rules.loaded()).isFalse();
        assertThatThrownBy(() -> EnvoyConfigDirectory.watching(dir.resolve("absent"), Duration.ofSeconds(1), rules, descriptors, meters).start())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("cannot list the directory");
    }

    /** A Kubernetes ConfigMap volume: files are links into a hidden ..data directory, swapped at once on a change. */
    @Test
    void aConfigMapVolumeIsReadThroughItsLinksAndItsHiddenEntriesSkipped() throws IOException {
        Path first = Files.createDirectory(dir.resolve("..2026_12_02_first"));
        Files.writeString(first.resolve("api.yaml"), GOOD);
        Files.writeString(first.resolve("notes.txt"), "not a configuration");
        Files.createSymbolicLink(dir.resolve("..data"), first.getFileName());
        Files.createSymbolicLink(dir.resolve("api.yaml"), Path.of("..data/api.yaml"));
        start(Duration.ofHours(1));
        assertThat(limitOfAccounts()).isEqualTo(new Limit.FixedWindow(10, 60));

        Path second = Files.createDirectory(dir.resolve("..2026_12_02_second"));
        Files.writeString(second.resolve("api.yaml"), GOOD.replace("10", "30"));
        Path swap = dir.resolve("..data_tmp");
        Files.createSymbolicLink(swap, second.getFileName());
        Files.move(swap, dir.resolve("..data"), java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        directory.reload();

        assertThat(limitOfAccounts()).isEqualTo(new Limit.FixedWindow(30, 60));
    }

    @Test
    void withoutADirectoryNothingHappens() {
        EnvoyConfigDirectory none = EnvoyConfigDirectory.none();
        none.start();
        none.close();
        assertThat(rules.loaded()).isFalse();
    }
}
