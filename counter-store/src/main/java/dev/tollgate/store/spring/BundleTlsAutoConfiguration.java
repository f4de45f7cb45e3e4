package dev.tollgate.store.spring;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * With {@code spring.data.redis.ssl.bundle} set, the Lettuce client Spring Boot builds takes its TLS from
 * {@link BundleTls}, which follows the bundle's reloads, in place of the managers Boot read at start-up.
 * Customizers run after Boot applied the bundle, so this one has the last word. The property is read when the
 * client is built, not by a condition: Spring AOT fixes conditions in the build, and a pod started from an
 * AOT-processed build must still take the bundle its own configuration names.
 */
@AutoConfiguration
@ConditionalOnClass(LettuceClientOptionsBuilderCustomizer.class)
public class BundleTlsAutoConfiguration {

    static final String BUNDLE = "spring.data.redis.ssl.bundle";

    @Bean
    LettuceClientOptionsBuilderCustomizer redisTlsFollowsItsBundle(SslBundles bundles, Environment environment) {
        String bundle = environment.getProperty(BUNDLE);
        return options -> {
            if (StringUtils.hasText(bundle)) {
                options.sslOptions(BundleTls.following(bundles, bundle));
            }
        };
    }
}
