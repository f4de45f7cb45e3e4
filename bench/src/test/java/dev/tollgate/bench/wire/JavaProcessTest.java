package dev.tollgate.bench.wire;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class JavaProcessTest {

    @Test
    void fromClassesAnotherMainRunsOnTheSameClassPath() {
        // the tests run from classes, not from the bench's executable jar
        assertThat(JavaProcess.benchMain(FloorServer.class))
                .containsExactly("-cp", System.getProperty("java.class.path"), FloorServer.class.getName());
    }

    @Test
    void theJmxAgentListensOnLoopbackOnOnePort() {
        assertThat(JavaProcess.jmxFlags(21105)).contains(
                "-Dcom.sun.management.jmxremote.port=21105",
                "-Dcom.sun.management.jmxremote.rmi.port=21105",
                "-Dcom.sun.management.jmxremote.host=127.0.0.1");
    }
}
