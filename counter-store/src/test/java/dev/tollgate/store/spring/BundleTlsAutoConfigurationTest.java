package dev.tollgate.store.spring;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SslOptions;
import org.junit.jupiter.api.Test;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.ssl.DefaultSslBundleRegistry;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The bundle is the pod's own configuration's, read when the client is built, whatever the build's AOT processing saw. */
class BundleTlsAutoConfigurationTest {

    private final DefaultSslBundleRegistry bundles = new DefaultSslBundleRegistry("redis", SslBundle.of(null));

    @Test
    void withoutABundleTheClientKeepsTheTlsSpringBootGaveIt() {
        SslOptions given = ClientOptions.builder().build().getSslOptions();

        assertThat(customized(Map.of()).build().getSslOptions()).isSameAs(given);
    }

    @Test
    void withABundleTheClientFollowsIt() {
        SslOptions given = ClientOptions.builder().build().getSslOptions();

        assertThat(customized(Map.of(BundleTlsAutoConfiguration.BUNDLE, "redis")).build().getSslOptions()).isNotSameAs(given);
    }

    @Test
    void aBundleThatDoesNotExistStopsTheStartNamingIt() {
        assertThatThrownBy(() -> customized(Map.of(BundleTlsAutoConfiguration.BUNDLE, "redis-typo")))
                .isInstanceOf(NoSuchSslBundleException.class).hasMessageContaining("redis-typo");
    }

    private ClientOptions.Builder customized(Map<String, Object> properties) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("pod", properties));
        LettuceClientOptionsBuilderCustomizer customizer = new BundleTlsAutoConfiguration().redisTlsFollowsItsBundle(bundles, environment);
        ClientOptions.Builder builder = ClientOptions.builder();
        customizer.customize(builder);
        return builder;
    }
}
