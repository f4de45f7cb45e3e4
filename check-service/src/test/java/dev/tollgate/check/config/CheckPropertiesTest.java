package dev.tollgate.check.config;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CheckPropertiesTest {

    @Test
    void printsRedisSettingsWithoutThePasswordOrASecretInASeed() {
        CheckProperties.Redis redis = new CheckProperties.Redis(List.of("redis://gateway:seed-secret@10.0.0.1:7000"), "gateway",
                "acl-secret", Duration.ofMillis(5), null, null);

        assertThat(redis.toString()).doesNotContain("seed-secret", "acl-secret").contains("password=****", "redis://****@10.0.0.1:7000");
    }

    @Test
    void startsThePodCountAtOneUnlessAFloorIsConfiguredAndRefusesAFloorBelowOne() {
        assertThat(new CheckProperties(null, null, null, null, null, null, null, null, null).pods().min()).isEqualTo(1);
        assertThat(new CheckProperties.Pods(null, null, null, 50).min()).isEqualTo(50);
        assertThatThrownBy(() -> new CheckProperties.Pods(null, null, null, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tollgate.pods.min");
    }

    @Test
    void waitsThirtySecondsForTheStoreBeforeServingInFallbackByDefault() {
        CheckProperties.Readiness readiness = new CheckProperties(null, null, null, null, null, null, null, null, null).readiness();

        assertThat(readiness.storeGrace()).isEqualTo(Duration.ofSeconds(30));
        assertThat(readiness.fallbackAfterGrace()).isTrue();
        assertThat(new CheckProperties.Readiness(Duration.ofMillis(-1)).fallbackAfterGrace()).isFalse();
    }
}
