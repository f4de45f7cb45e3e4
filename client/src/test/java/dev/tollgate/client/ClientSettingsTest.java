package dev.tollgate.client;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ClientSettingsTest {

    private static final URI NOWHERE = URI.create("http://127.0.0.1:9");

    @Test
    void theDefaultConnectTimeoutLeavesHalfTheDeadlineForTheKeysNextPod() {
        assertThat(ClientSettings.DEFAULTS.connectTimeout()).isLessThanOrEqualTo(ClientSettings.DEFAULTS.deadline().dividedBy(2));
        try (TollgateClient quick = TollgateClient.builder().endpoint(NOWHERE).deadline(Duration.ofMillis(40)).build();
             TollgateClient patient = TollgateClient.builder().endpoint(NOWHERE).deadline(Duration.ofSeconds(3)).build()) {
            assertThat(quick.settings().connectTimeout()).isEqualTo(Duration.ofMillis(20));
            assertThat(patient.settings().connectTimeout()).as("never longer than a healthy connect needs").isEqualTo(Duration.ofMillis(500));
        }
    }

    @Test
    void aConnectTimeoutOfTheClientsOwnIsKept() {
        try (TollgateClient client = TollgateClient.builder().endpoint(NOWHERE).deadline(Duration.ofMillis(100))
                .connectTimeout(Duration.ofMillis(80)).build()) {
            assertThat(client.settings().connectTimeout()).isEqualTo(Duration.ofMillis(80));
        }
    }

    @Test
    void aConnectTimeoutLongerThanTheDeadlineIsRefusedAtStartUp() {
        assertThatThrownBy(() -> TollgateClient.builder().endpoint(NOWHERE).deadline(Duration.ofMillis(100))
                .connectTimeout(Duration.ofMillis(500)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connectTimeout (500 ms)")
                .hasMessageContaining("deadline (100 ms)");
    }

    @Test
    void aConnectTimeoutAsLongAsTheDeadlineIsRefusedToo() {
        // the deadline and the connect would race: the pod that drops SYNs is then never passed over nor marked down
        assertThatThrownBy(() -> TollgateClient.builder().endpoint(NOWHERE).deadline(Duration.ofMillis(100))
                .connectTimeout(Duration.ofMillis(100)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not shorter than the deadline");
        assertThatThrownBy(() -> TollgateClient.builder().endpoint(NOWHERE).deadline(Duration.ofMillis(1)).build())
                .hasMessageContaining("at least 2 ms");
    }

    @Test
    void aPodIsProbedAfterOneSecondThenBackingOffToFifteen() {
        assertThat(ClientSettings.DEFAULTS.podDownFor()).isEqualTo(Duration.ofSeconds(1));
        assertThat(ClientSettings.DEFAULTS.podDownForAtMost()).isEqualTo(Duration.ofSeconds(15));
        try (TollgateClient patient = TollgateClient.builder().endpoint(NOWHERE).podDownFor(Duration.ofMinutes(1)).build()) {
            assertThat(patient.settings().podDownForAtMost()).as("never below the first interval").isEqualTo(Duration.ofMinutes(1));
        }
    }

    @Test
    void aCapBelowTheFirstIntervalIsRefusedAtStartUp() {
        assertThatThrownBy(() -> TollgateClient.builder().endpoint(NOWHERE).podDownFor(Duration.ofSeconds(2))
                .podDownForAtMost(Duration.ofSeconds(1)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("podDownForAtMost (1000 ms) is shorter than podDownFor (2000 ms)");
    }
}
