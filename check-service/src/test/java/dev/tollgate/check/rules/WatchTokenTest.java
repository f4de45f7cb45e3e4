package dev.tollgate.check.rules;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WatchTokenTest {

    @TempDir
    Path dir;

    @Test
    void aBlankFixedTokenIsNoToken() throws IOException {
        assertThat(WatchToken.fixed("  ")).isSameAs(WatchToken.NONE);
        assertThat(WatchToken.fixed(null).current()).isNull();
        assertThat(WatchToken.fixed(" abc\n").current()).isEqualTo("abc");
    }

    @Test
    void aTokenFileIsReadAgainEachTime() throws IOException {
        Path file = dir.resolve("token");
        Files.writeString(file, "first\n");
        WatchToken token = WatchToken.file(file);
        assertThat(token.current()).isEqualTo("first");
        Files.writeString(file, "second");
        assertThat(token.current()).isEqualTo("second");
        assertThat(token.toString()).as("names the file, never the token").contains(file.toString()).doesNotContain("second");
    }

    @Test
    void anEmptyOrMissingFileFailsThePollInsteadOfSendingNoToken() throws IOException {
        Path file = dir.resolve("token");
        Files.writeString(file, " \n");
        assertThatThrownBy(() -> WatchToken.file(file).current()).isInstanceOf(IOException.class).hasMessageContaining("is empty");
        assertThatThrownBy(() -> WatchToken.file(dir.resolve("absent")).current()).isInstanceOf(NoSuchFileException.class);
    }
}
