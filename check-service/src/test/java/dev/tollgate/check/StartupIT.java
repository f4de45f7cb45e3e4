package dev.tollgate.check;

import dev.tollgate.limiter.Limiter;
import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveRedisTemplate;
import org.springframework.transaction.support.TransactionOperations;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the start-up trimming (docs/performance.md, "What a pod no longer does before its first answer") must keep: the context a pod serves
 * with, and its first answer enforced. The store connects while the context is built, and the ports open
 * only once its first attempt has settled, so against a healthy cluster the very first check is answered
 * from Redis, never by a fail mode.
 */
class StartupIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void answersItsFirstCheckFromTheStoreWithTheContextItServesWith() throws Exception {
        try (ConfigurableApplicationContext pod = start(RedisCluster.shared().clusterNodes())) {
            String base = "http://127.0.0.1:" + pod.getEnvironment().getProperty("local.server.port");
            HttpResponse<String> first = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/v1/ratelimit:check"))
                    .header("Content-Type", "application/json").timeout(Duration.ofSeconds(10))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"acct_"
                            + UUID.randomUUID() + "\",\"cost\":1}]}"))
                    .build(), HttpResponse.BodyHandlers.ofString());

            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.body()).contains("\"verdict\":\"allow\"").doesNotContain("fallback");
            assertThat(pod.getBean(RedisCounterStore.class).isConnected()).isTrue();
            assertThat(pod.getBeansOfType(Limiter.class)).hasSize(1);
            assertThat(pod.getBeansOfType(LettuceConnectionFactory.class)).hasSize(1);
            // left out: no reactive templates, no transactions
            assertThat(pod.getBeanNamesForType(ReactiveRedisTemplate.class)).isEmpty();
            assertThat(pod.getBeanNamesForType(TransactionOperations.class)).isEmpty();
            // built only if asked for: still there for whoever needs one, but not built at start
            assertThat(pod.getBeanFactory().getBeanDefinition("redisTemplate").isLazyInit()).isTrue();
            assertThat(pod.getBeanFactory().containsSingleton("redisTemplate")).isFalse();
            assertThat(pod.getBeanFactory().containsSingleton("stringRedisTemplate")).isFalse();
        }
    }

    private static ConfigurableApplicationContext start(String seeds) {
        return new SpringApplicationBuilder(CheckServiceApplication.class).web(WebApplicationType.REACTIVE).run(
                "--server.port=0", "--management.server.port=0", "--tollgate.grpc.port=0", "--spring.main.banner-mode=off",
                "--spring.data.redis.cluster.nodes=" + seeds,
                // generous, so that a slow first script on a busy machine is not mistaken for a fallback
                "--tollgate.redis.command-timeout=200ms",
                "--tollgate.rules.file=" + Path.of("src/test/resources/rules-test.yml").toAbsolutePath());
    }
}
