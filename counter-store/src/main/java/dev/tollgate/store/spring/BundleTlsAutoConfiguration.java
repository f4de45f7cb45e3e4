package dev.tollgate.store.spring;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * With {@code spring.data.redis.ssl.bundle} set, the Lettuce client Spring Boot builds takes its TLS from
 * {@link BundleTls}, which follows the bundle's reloads, in place of the managers Boot read at start-up.
 * Customizers run after Boot applied the bundle, so this one has the last word.
 */
@AutoConfiguration
@ConditionalOnClass(LettuceClientOptionsBuilderCustomizer.class)
@ConditionalOnProperty("spring.data.redis.ssl.bundle")
public class BundleTlsAutoConfiguration {

    @Bean
    LettuceClientOptionsBuilderCustomizer redisTlsFollowsItsBundle(SslBundles bundles, Environment environment) {
        String bundle = environment.getRequiredProperty("spring.data.redis.ssl.bundle");
        return options -> options.sslOptions(BundleTls.following(bundles, bundle));
    }
}
