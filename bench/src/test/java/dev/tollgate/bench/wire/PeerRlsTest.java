package dev.tollgate.bench.wire;

import dev.tollgate.bench.BenchOptions;
import org.junit.jupiter.api.Test;

import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PeerRlsTest {

    @Test
    void aPeerIsAHostAndPortWithAnOptionalPid() {
        assertThat(PeerRls.parse("127.0.0.1:8091", null)).isEqualTo(new PeerRls("127.0.0.1", 8091, OptionalLong.empty()));
        assertThat(PeerRls.parse("rls.local:8081", "4242").pid()).hasValue(4242);
    }

    @Test
    void aPeerWithoutAPortIsRefusedWithTheOptionsName() {
        assertThatThrownBy(() -> PeerRls.parse("127.0.0.1", null)).hasMessageContaining("--peer-rls");
        assertThatThrownBy(() -> PeerRls.parse("127.0.0.1:http", null)).hasMessageContaining("--peer-rls");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--peer-rls-pid=12"})).hasMessageContaining("--peer-rls=HOST:PORT");
    }

    @Test
    void cpuTicksAreUserAndSystemTimeCountedAfterTheCommandsParenthesis() {
        // a command with a space and a parenthesis of its own: fields are counted from the last ')'
        String stat = "4242 (rate limit) S 1 4242 4242 0 -1 4194560 1234 0 0 0 250 75 0 0 20 0 12 0 100 0 0";

        assertThat(PeerRls.ticksOf(stat)).isEqualTo(325);
    }

    @Test
    void thisProcesssCpuIsReadFromProcWhenItsPidIsGiven() {
        PeerRls self = new PeerRls("127.0.0.1", 1, OptionalLong.of(ProcessHandle.current().pid()));

        assertThat(self.cpuNanos()).isPresent();
        assertThat(new PeerRls("127.0.0.1", 1, OptionalLong.empty()).cpuNanos()).isEmpty();
    }

    @Test
    void theMixesAndThePeerAreOptionsOfTheirOwn() {
        BenchOptions defaults = BenchOptions.defaults();
        assertThat(defaults.wireMixes().mixes()).containsExactly(WireMixOptions.Kind.DESIGN, WireMixOptions.Kind.STORE_BOUND);
        assertThat(defaults.wireMixes().peer()).isEmpty();

        BenchOptions chosen = BenchOptions.parse(new String[] {"--wire-mixes=store-bound", "--wire-store-keys=5000",
                "--peer-rls=127.0.0.1:8091", "--peer-rls-pid=77"});

        assertThat(chosen.wireMixes().mixes()).containsExactly(WireMixOptions.Kind.STORE_BOUND);
        assertThat(chosen.wireMixes().storeBoundKeys()).isEqualTo(5000);
        assertThat(chosen.wireMixes().peer()).hasValue(new PeerRls("127.0.0.1", 8091, OptionalLong.of(77)));
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--wire-mixes=design,bursty"})).hasMessageContaining("--wire-mixes");
    }
}
