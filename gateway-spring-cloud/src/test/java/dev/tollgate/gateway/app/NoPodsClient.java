package dev.tollgate.gateway.app;

import dev.tollgate.client.TollgateClient;
import dev.tollgate.client.affinity.DnsPodSource;
import dev.tollgate.gateway.TollgateClientCustomizer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * A client of the application's own, on a headless Service whose DNS answers no pod (a loopback DNS server at
 * {@code test.dns-port}), as an application that builds its client itself applies the customizers.
 */
@Configuration(proxyBeanMethods = false)
public class NoPodsClient {

    @Bean(destroyMethod = "close")
    TollgateClient tollgateClient(@Value("${test.dns-port}") int dnsPort, ObjectProvider<TollgateClientCustomizer> customizers) {
        TollgateClient.Builder builder = TollgateClient.builder()
                .podSource(DnsPodSource.start("tollgate-check-service-headless.test", 8080, Duration.ofMillis(200),
                        new InetSocketAddress("127.0.0.1", dnsPort)));
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }
}
