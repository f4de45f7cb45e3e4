package dev.tollgate.store;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The connect timeout is its own setting, and no credential is ever printed. */
class RedisStoreSettingsTest {

    @Test
    void printsNoCredentialFromTheSeedsOrThePassword() {
        RedisStoreSettings settings = new RedisStoreSettings(
                List.of("redis://gateway:seed-secret@10.0.0.1:7000", "rediss://:other-secret@10.0.0.2:7000", "redis://10.0.0.3:7000"),
                "gateway", "acl-secret", null, null, null);

        assertThat(settings.toString())
                .doesNotContain("seed-secret", "other-secret", "acl-secret")
                .contains("redis://****@10.0.0.1:7000", "rediss://****@10.0.0.2:7000", "redis://10.0.0.3:7000", "password=****");
    }

    @Test
    void defaultsTheConnectTimeoutToOneSecondWhateverTheCommandTimeout() {
        RedisStoreSettings settings = RedisStoreSettings.of(List.of("redis://127.0.0.1:7000")).withCommandTimeout(Duration.ofMillis(5));

        assertThat(settings.connectTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(settings.withCredentials("u", "p").connectTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(settings.withConnectTimeout(Duration.ofMillis(300)).withCommandTimeout(Duration.ofMillis(2)).connectTimeout())
                .isEqualTo(Duration.ofMillis(300));
    }

    @Test
    void refusesANonPositiveConnectTimeoutNamingTheSetting() {
        assertThatThrownBy(() -> RedisStoreSettings.of(List.of("redis://127.0.0.1:7000")).withConnectTimeout(Duration.ZERO))
                .hasMessageContaining("connect timeout must be positive");
    }

    @Test
    void handshakeAndTcpConnectUseTheConnectTimeoutAndCommandsTheCommandTimeout() {
        RedisStoreSettings settings = RedisStoreSettings.of(List.of("redis://127.0.0.1:7000", "redis://127.0.0.1:7001"))
                .withCommandTimeout(Duration.ofMillis(5))
                .withConnectTimeout(Duration.ofMillis(750));

        // Lettuce bounds the handshake (and slot-map reads) by the URI's timeout: with 5 ms there, first connects failed
        assertThat(RedisCounterStore.uris(settings)).extracting(RedisURI::getTimeout).containsOnly(Duration.ofMillis(750));
        ClusterClientOptions options = RedisCounterStore.clientOptions(settings);
        assertThat(options.getSocketOptions().getConnectTimeout()).isEqualTo(Duration.ofMillis(750));
        var commandTimeout = options.getTimeoutOptions().getSource();
        assertThat(Duration.of(commandTimeout.getTimeout(null), commandTimeout.getTimeUnit().toChronoUnit())).isEqualTo(Duration.ofMillis(5));
    }

    @Test
    void followsRedirectsToAPrimaryTheSlotMapDoesNotKnowYet() {
        ClusterClientOptions options = RedisCounterStore.clientOptions(RedisStoreSettings.of(List.of("redis://127.0.0.1:7000")));

        assertThat(options.isValidateClusterNodeMembership()).isFalse();
        assertThat(options.getMaxRedirects()).isPositive();
        assertThat(options.getTopologyRefreshOptions().getAdaptiveRefreshTriggers())
                .contains(ClusterTopologyRefreshOptions.RefreshTrigger.MOVED_REDIRECT, ClusterTopologyRefreshOptions.RefreshTrigger.ASK_REDIRECT);
    }

    @Test
    void describesAFailureOnOneLineWithoutCredentials() {
        Exception failure = new RuntimeException("Cannot retrieve cluster partitions from [redis://user:pw@127.0.0.1:7000]\n\tDetails:",
                new java.net.ConnectException("Connection refused: /127.0.0.1:7000"));

        assertThat(RedisCounterStore.describe(failure))
                .isEqualTo("Connection refused: /127.0.0.1:7000 (Cannot retrieve cluster partitions from [redis://****@127.0.0.1:7000] Details:)");
        assertThat(RedisCounterStore.describe(new RuntimeException("WRONGPASS invalid username-password pair")))
                .isEqualTo("the cluster refused our credentials");
    }
}
