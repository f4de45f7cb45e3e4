package dev.tollgate.store.spring;

import org.junit.jupiter.api.Test;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetiredPropertiesTest {

    @Test
    void refusesAnOldRedisPropertyNamingWhatReplacedIt() {
        StandardEnvironment environment = environment(Map.of("tollgate.redis.seeds", "redis://10.0.0.1:7000", "tollgate.redis.password", "x"));

        assertThatThrownBy(() -> RetiredProperties.refuse(environment, RetiredProperties.REDIS))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("tollgate.redis.seeds is no longer read: set spring.data.redis.cluster.nodes")
                .hasMessageContaining("tollgate.redis.password is no longer read: set spring.data.redis.password")
                .hasMessageNotContaining("10.0.0.1");
    }

    @Test
    void letsTheStoresOwnCommandTimeoutAndSpringsPropertiesThrough() {
        StandardEnvironment environment = environment(Map.of("tollgate.redis.command-timeout", "5ms",
                "spring.data.redis.cluster.nodes", "10.0.0.1:7000"));

        assertThatCode(() -> RetiredProperties.refuse(environment, RetiredProperties.REDIS)).doesNotThrowAnyException();
    }

    private static StandardEnvironment environment(Map<String, Object> properties) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("test", properties));
        return environment;
    }
}
