package dev.tollgate.bench;

import dev.tollgate.bench.BenchOptions.Protocol;
import dev.tollgate.bench.wire.ColdStarts.Launch;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BenchOptionsTest {

    @Test
    void scenarioEightRunsAtTheIssuesRatesOverEveryProtocolByDefault() {
        BenchOptions.Wire wire = BenchOptions.defaults().wire();

        assertThat(BenchOptions.defaults().scenarios()).contains(8);
        assertThat(wire.rates()).containsExactly(1000, 5000, 10000);
        assertThat(wire.connections()).isEqualTo(16);
        assertThat(wire.protocols()).containsExactly(Protocol.HTTP1, Protocol.H2C, Protocol.GRPC);
        assertThat(wire.jvmFlags()).contains("-XX:MaxRAM=1g", "-XX:+UseG1GC");
        assertThat(wire.podJar()).isNull();
        assertThat(wire.basePort()).isZero();
        assertThat(wire.warmupSeconds()).isEqualTo(240);
        assertThat(wire.coldStartRounds()).isEqualTo(3);
        assertThat(wire.coldStartLaunches()).containsExactly(Launch.values());
        assertThat(wire.ramp().rounds()).isEqualTo(3);
        assertThat(wire.ramp().capSeconds()).isEqualTo(120);
        assertThat(wire.ramp().launches()).containsExactly(Launch.values());
        assertThat(wire.ramp().warmUp()).containsExactly(true, false);
        assertThat(wire.steps()).isTrue();
    }

    @Test
    void theColdRampAloneIsScenarioEightWithoutProtocolsNorColdStarts() {
        BenchOptions.Wire wire = BenchOptions.parse(new String[] {"--scenarios=8", "--wire-protocols=none", "--wire-cold-starts=0",
                "--wire-ramp-rounds=1", "--wire-ramp-cap-s=30", "--wire-ramp-launches=extracted-aot,fat-jar", "--wire-ramp-warm-up=off"}).wire();

        assertThat(wire.steps()).isFalse();
        assertThat(wire.ramp().rounds()).isEqualTo(1);
        assertThat(wire.ramp().capSeconds()).isEqualTo(30);
        assertThat(wire.ramp().launches()).containsExactly(Launch.EXTRACTED_AOT, Launch.FAT_JAR);
        assertThat(wire.ramp().warmUp()).containsExactly(false);
    }

    @Test
    void everyWireOptionIsReadFromTheCommandLine() {
        BenchOptions.Wire wire = BenchOptions.parse(new String[] {"--scenarios=8", "--wire-rates=2000,4000",
                "--wire-connections=4", "--wire-protocols=grpc,http1", "--wire-jvm=-Xmx256m  -XX:+UseSerialGC",
                "--wire-pod-jar=/tmp/pod.jar", "--wire-base-port=21100", "--wire-keys=500", "--wire-warmup-s=0",
                "--wire-cold-starts=0", "--wire-cold-start-launches=image,fast-start"}).wire();

        assertThat(wire.rates()).containsExactly(2000, 4000);
        assertThat(wire.connections()).isEqualTo(4);
        assertThat(wire.protocols()).containsExactly(Protocol.GRPC, Protocol.HTTP1);
        assertThat(wire.jvmFlags()).containsExactly("-Xmx256m", "-XX:+UseSerialGC");
        assertThat(wire.podJar()).isEqualTo(Path.of("/tmp/pod.jar"));
        assertThat(wire.basePort()).isEqualTo(21100);
        assertThat(wire.keys()).isEqualTo(500);
        assertThat(wire.warmupSeconds()).isZero();
        assertThat(wire.coldStartRounds()).isZero();
        assertThat(wire.coldStartLaunches()).containsExactly(Launch.IMAGE, Launch.CLASS_CACHE);
    }

    @Test
    void wireOptionsOutOfBoundsAreRefusedWithTheirName() {
        for (List<String> bad : List.of(List.of("--wire-protocols=http3", "http3"), List.of("--wire-connections=0", "--wire-connections"),
                List.of("--wire-rates=0", "--wire-rates"), List.of("--wire-base-port=70000", "--wire-base-port"),
                List.of("--wire-keys=10", "--wire-keys"), List.of("--wire-warmup-s=-1", "--wire-warmup-s"),
                List.of("--wire-cold-starts=-1", "--wire-cold-starts"), List.of("--wire-ramp-rounds=-1", "--wire-ramp-rounds"),
                List.of("--wire-ramp-cap-s=0", "--wire-ramp-cap-s"), List.of("--wire-ramp-launches=jib", "--wire-ramp-launches"),
                List.of("--wire-cold-start-launches=jib", "--wire-cold-start-launches"), List.of("--wire-cold-start-launches=,", "--wire-cold-start-launches"),
                List.of("--wire-ramp-warm-up=maybe", "--wire-ramp-warm-up"), List.of("--wire-ramp-warm-up=", "--wire-ramp-warm-up"),
                List.of("--scenarios=13", "--scenarios"))) {
            assertThatThrownBy(() -> BenchOptions.parse(new String[] {bad.get(0)}))
                    .as(bad.get(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(bad.get(1));
        }
    }
}
