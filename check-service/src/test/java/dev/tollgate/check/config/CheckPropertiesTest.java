package dev.tollgate.check.config;

import dev.tollgate.limiter.LimiterSettings;
import dev.tollgate.limiter.Optimizations;
import dev.tollgate.limiter.breaker.BreakerSettings;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CheckPropertiesTest {

    @Test
    void defaultsTheCommandTimeoutToTheDesignsFiveMillisecondsAndRefusesANonPositiveOne() {
        assertThat(new CheckProperties(null, null, null, null, null, null, null, null, null, null).redis().settings().commandTimeout())
                .isEqualTo(Duration.ofMillis(5));
        assertThatThrownBy(() -> new CheckProperties.Redis(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tollgate.redis.command-timeout");
    }

    @Test
    void startsThePodCountAtOneUnlessAFloorIsConfiguredAndRefusesAFloorBelowOne() {
        assertThat(new CheckProperties(null, null, null, null, null, null, null, null, null, null).pods().min()).isEqualTo(1);
        assertThat(new CheckProperties.Pods(null, null, null, 50).min()).isEqualTo(50);
        assertThatThrownBy(() -> new CheckProperties.Pods(null, null, null, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tollgate.pods.min");
    }

    @Test
    void appliesTheEnginesDefaultsToWhatIsLeftOut() {
        CheckProperties properties = new CheckProperties(null, null, null, null, null, null, null, null, null, null);

        assertThat(properties.breaker().settings()).isEqualTo(BreakerSettings.DEFAULTS);
        assertThat(properties.optimizations().settings()).isEqualTo(Optimizations.ALL);
        assertThat(properties.check().maxEntries()).isEqualTo(LimiterSettings.DEFAULTS.maxEntries());
        assertThat(new CheckProperties.Optimizations(null, false, null, 20, null).settings())
                .isEqualTo(new Optimizations(true, false, true, 20, Optimizations.ALL.leaseTtl()));
    }

    /** The engine names its own settings; a pod's start-up failure names the property to change. */
    @Test
    void refusesABadEngineSettingNamingItsProperty() {
        assertThatThrownBy(() -> new CheckProperties.Breaker(0, null)).hasMessageContaining("tollgate.breaker.failures-to-open");
        assertThatThrownBy(() -> new CheckProperties.Breaker(null, Duration.ZERO)).hasMessageContaining("tollgate.breaker.open-for");
        assertThatThrownBy(() -> new CheckProperties.Optimizations(null, null, null, 10_001, null))
                .hasMessageContaining("tollgate.optimizations.lease-want must be between 1 and 10000");
        assertThatThrownBy(() -> new CheckProperties.Optimizations(null, null, null, null, Duration.ofMillis(-1)))
                .hasMessageContaining("tollgate.optimizations.lease-ttl");
        assertThatThrownBy(() -> new CheckProperties.Check(0, null)).hasMessageContaining("tollgate.check.max-entries");
        assertThatThrownBy(() -> new CheckProperties.Check(null, Duration.ofMinutes(2))).hasMessageContaining("tollgate.check.deadline");
    }

    @Test
    void waitsThirtySecondsForTheStoreBeforeServingInFallbackByDefault() {
        CheckProperties.Readiness readiness = new CheckProperties(null, null, null, null, null, null, null, null, null, null).readiness();

        assertThat(readiness.storeGrace()).isEqualTo(Duration.ofSeconds(30));
        assertThat(readiness.fallbackAfterGrace()).isTrue();
        assertThat(new CheckProperties.Readiness(Duration.ofMillis(-1)).fallbackAfterGrace()).isFalse();
    }
}
