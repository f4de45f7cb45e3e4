package dev.tollgate.bench.wire;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PortsTest {

    @Test
    void fromABasePortTheServersTakeConsecutivePorts() {
        Ports ports = new Ports(21100);

        assertThat(ports.next()).isEqualTo(21100);
        assertThat(ports.next()).isEqualTo(21101);
        assertThat(ports.next()).isEqualTo(21102);
    }

    @Test
    void withoutOneEachPortIsAFreeOne() {
        Ports ports = new Ports(0);

        assertThat(ports.next()).isBetween(1, 65_535);
    }
}
