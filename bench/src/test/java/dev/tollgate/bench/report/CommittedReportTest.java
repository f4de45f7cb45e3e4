package dev.tollgate.bench.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The committed bench/README.md is a report as the bench writes it: it opens with {@link ReportWriter#PREAMBLE},
 * word for word, so nothing (notes about earlier runs, a hand-written summary) sits above the current report. Those
 * belong in the file's git history, where a rerun's report does not wipe them out.
 */
class CommittedReportTest {

    @Test
    void theCommittedReportStartsWithThePreambleTheBenchWrites() throws IOException {
        String committed = Files.readString(Path.of(ReportWriter.FILE));
        assertThat(committed).startsWith(ReportWriter.PREAMBLE);
        assertThat(committed.substring(ReportWriter.PREAMBLE.length()))
                .as("the report itself follows the preamble")
                .startsWith("## How this report was produced\n");
    }

    @Test
    void everyReportTheBenchWritesStartsWithThePreamble(@TempDir Path dir) throws IOException {
        Path written = ReportWriter.write(dir, "java -jar bench/target/tollgate-bench.jar", Map.of(), List.of(), List.of());
        assertThat(Files.readString(written)).startsWith(ReportWriter.PREAMBLE + "## How this report was produced\n");
    }
}
