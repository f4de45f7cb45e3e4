package dev.tollgate.bench.wire;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CannedAnswerTest {

    @Test
    void anAnswerComesBackFromItsFileWithTheSameHeadersAndBody(@TempDir Path folder) {
        CannedAnswer answer = new CannedAnswer(List.of(
                Map.entry("Content-Type", "application/json"),
                Map.entry("RateLimit-Policy", "\"enterprise\";q=1000;w=1"),
                Map.entry("RateLimit", "\"enterprise\";r=1999;t=1")),
                "{\"verdict\":\"allow\",\"entries\":[]}\n".getBytes(StandardCharsets.UTF_8));

        answer.writeTo(folder.resolve("answer.txt"));
        CannedAnswer read = CannedAnswer.readFrom(folder.resolve("answer.txt"));

        assertThat(read.headers()).isEqualTo(answer.headers());
        assertThat(read.body()).isEqualTo(answer.body());
    }

    @Test
    void theTransportsOwnHeadersAreLeftToTheFloorsCodec() {
        CannedAnswer answer = new CannedAnswer(List.of(
                Map.entry("content-length", "320"),
                Map.entry("Connection", "keep-alive"),
                Map.entry("transfer-encoding", "chunked"),
                Map.entry("content-type", "application/json")), new byte[0]);

        assertThat(answer.headers()).containsExactly(Map.entry("content-type", "application/json"));
    }

    @Test
    void aFileWithoutTheBlankLineOrWithABrokenHeaderIsRefused() {
        assertThatThrownBy(() -> CannedAnswer.parse("content-type: application/json"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blank line");
        assertThatThrownBy(() -> CannedAnswer.parse("no colon here\n\n{}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a header line");
    }
}
