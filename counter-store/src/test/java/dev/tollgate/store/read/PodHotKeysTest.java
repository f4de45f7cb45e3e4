package dev.tollgate.store.read;

import dev.tollgate.store.key.RedisKeys;
import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PodHotKeysTest {

    @Test
    void readsBackWhatItWroteWhateverTheCallersKeyHolds() {
        String odd = "user name+{tag}:\n100% ü";
        PodHotKeys report = new PodHotKeys("pod-1", 900,
                List.of(new PodHotKeys.Key(odd, RedisKeys.slot(odd), 500, 3), new PodHotKeys.Key("acct_7Q2", RedisKeys.slot("acct_7Q2"), 20, 0)),
                List.of(new PodHotKeys.Slot(RedisKeys.slot(odd), 510)));

        assertThat(PodHotKeys.decode("pod-1", report.encode())).contains(report);
    }

    @Test
    void anEmptyTopIsAReportOfItsCalls() {
        PodHotKeys quiet = new PodHotKeys("pod-2", 0, List.of(), List.of());

        assertThat(PodHotKeys.decode("pod-2", quiet.encode())).contains(quiet);
    }

    @Test
    void aDamagedOrForeignTextIsNoReport() {
        assertThat(PodHotKeys.decode("p", null)).isEmpty();
        assertThat(PodHotKeys.decode("p", "{\"keys\":[]}")).isEmpty();
        assertThat(PodHotKeys.decode("p", "tollgate-hot-keys 1 x\n")).isEmpty();
        assertThat(PodHotKeys.decode("p", "tollgate-hot-keys 1 10\nk 99999 1 0 acct\n")).isEmpty();
        assertThat(PodHotKeys.decode("p", "tollgate-hot-keys 1 10\nk 1 2\n")).isEmpty();
        assertThat(PodHotKeys.decode("p", "tollgate-hot-keys 1 10\nz 1 2\n")).isEmpty();
    }

    @Test
    void refusesMoreThanItsBound() {
        List<PodHotKeys.Slot> slots = Collections.nCopies(PodHotKeys.MAX_ENTRIES + 1, new PodHotKeys.Slot(1, 1));

        assertThatThrownBy(() -> new PodHotKeys("p", 1, List.of(), slots)).isInstanceOf(IllegalArgumentException.class);
    }
}
