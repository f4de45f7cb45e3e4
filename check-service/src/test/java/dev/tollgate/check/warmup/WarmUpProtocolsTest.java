package dev.tollgate.check.warmup;

import dev.tollgate.check.config.CheckProperties;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import java.time.Clock;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A warm-up told to warm only Envoy's service on a pod whose gRPC port is off has nothing to run: it must say so and
 * let the pod be ready, not wait out its longest warm-up with no traffic.
 */
class WarmUpProtocolsTest {

    @Test
    void aWarmUpWithNothingToWarmIsOverAtOnceAndSaysWhy() {
        CheckProperties properties = new Binder(new MapConfigurationPropertySource(Map.of(
                "tollgate.warm-up.protocols", "grpc", "tollgate.grpc.enabled", "false")))
                .bindOrCreate("tollgate", Bindable.of(CheckProperties.class));
        WarmUp warmUp = new WarmUp(properties, null, null, null, null, Clock.systemUTC(), null);

        warmUp.start();

        assertThat(warmUp.done()).isTrue();
        assertThat(warmUp.isRunning()).isFalse();
        assertThat(warmUp.state()).contains("nothing to warm");
    }
}
