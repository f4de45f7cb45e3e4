package dev.tollgate.check.api;

import dev.tollgate.check.CheckServiceApplication;
import dev.tollgate.limiter.Limiter;
import dev.tollgate.testsupport.http.RawHttp;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.http.client.ReactorResourceFactory;
import reactor.netty.resources.LoopResources;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two pods in one JVM, as a test run or an embedder has them: closing one leaves the other serving, on the
 * connection it had open and on a new one. On Reactor Netty's global loops, the first pod's close
 * disposed the loops the second served on.
 */
class EventLoopsIT {

    @Test
    void closingOnePodLeavesTheOtherAnsweringChecks() throws IOException {
        try (ConfigurableApplicationContext first = start("event-loops-first");
             ConfigurableApplicationContext second = start("event-loops-second")) {
            int port = port(second);
            try (Socket open = new Socket("127.0.0.1", port)) {
                open.setSoTimeout(10_000);
                assertThat(check(open).status()).isEqualTo(200);
                assertThat(check(port(first))).isEqualTo(200);

                first.close();

                assertThat(check(open).status()).as("the connection open to the other pod").isEqualTo(200);
                assertThat(check(port)).as("a new connection to the other pod").isEqualTo(200);
            }
        }
    }

    /**
     * The store's channels are on the check port's loops, one per core: a check's script call is answered on a loop
     * of the check port, so it can be written back without a hand-off to another thread, not on an I/O thread of
     * Lettuce's own.
     */
    @Test
    void theStoreAnswersOnTheCheckPortsLoops() throws IOException {
        try (ConfigurableApplicationContext pod = start("event-loops-store")) {
            Set<String> answeredOn = storeReplyThreads(pod);
            for (int i = 0; i < 20; i++) {
                assertThat(check(port(pod))).isEqualTo(200);
            }
            assertThat(answeredOn).as("threads the store's replies completed on").isNotEmpty()
                    .allSatisfy(thread -> assertThat(thread).startsWith("webflux-http"));
            assertThat(pod.getBean(ReactorResourceFactory.class).getLoopResources().onServer(LoopResources.DEFAULT_NATIVE))
                    .as("the check port's loops: one per core").hasSize(Runtime.getRuntime().availableProcessors());
        }
    }

    /**
     * An embedder's own resource factory disposes its loops when its lifecycle stops, before the store's client is
     * closed: the store keeps Lettuce's own loops there, and the pod closes (on the embedder's loops, Lettuce's
     * shutdown waited for ever on channels whose loop was gone).
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aPodOnAnEmbeddersLoopsKeepsLettucesOwnAndCloses() throws IOException {
        ConfigurableApplicationContext pod = start("event-loops-embedded", context -> ((GenericApplicationContext) context)
                .registerBean(ReactorResourceFactory.class, () -> {
                    ReactorResourceFactory loops = new ReactorResourceFactory();
                    loops.setUseGlobalResources(false);
                    loops.setShutdownQuietPeriod(Duration.ZERO);
                    return loops;
                }));
        try {
            Set<String> answeredOn = storeReplyThreads(pod);
            for (int i = 0; i < 5; i++) {
                assertThat(check(port(pod))).isEqualTo(200);
            }
            // a reply that came back before the check chained its continuation is handled on the check's thread
            assertThat(answeredOn).as("threads the store's replies completed on").anySatisfy(thread -> assertThat(thread).startsWith("lettuce-"));
        } finally {
            pod.close();
        }
        assertThat(pod.isActive()).isFalse();
    }

    /** The threads the store's replies complete on, as the shards' breakers see them, from now on. */
    private static Set<String> storeReplyThreads(ConfigurableApplicationContext pod) {
        Set<String> answeredOn = ConcurrentHashMap.newKeySet();
        pod.getBean(Limiter.class).breakers().all().values()
                .forEach(breaker -> breaker.getEventPublisher().onSuccess(event -> answeredOn.add(Thread.currentThread().getName())));
        return answeredOn;
    }

    private static ConfigurableApplicationContext start(String id) {
        return start(id, context -> {
        });
    }

    private static ConfigurableApplicationContext start(String id, ApplicationContextInitializer<ConfigurableApplicationContext> initializer) {
        return new SpringApplicationBuilder(CheckServiceApplication.class)
                .web(WebApplicationType.REACTIVE)
                .logStartupInfo(false)
                .initializers(initializer)
                .run("--server.port=0", "--tollgate.grpc.enabled=false",
                        "--spring.data.redis.cluster.nodes=" + RedisCluster.shared().clusterNodes(),
                        "--tollgate.redis.command-timeout=2s",
                        "--tollgate.rules.file=src/test/resources/rules-test.yml", "--tollgate.rules.service-url=",
                        "--tollgate.pods.id=" + id, "--tollgate.region.name=" + id,
                        "--management.metrics.use-global-registry=false");
    }

    private static int port(ConfigurableApplicationContext pod) {
        return Integer.parseInt(pod.getEnvironment().getProperty("local.server.port"));
    }

    private static String request() {
        String body = "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"loops_" + UUID.randomUUID() + "\"}]}";
        return "POST /v1/ratelimit:check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length() + "\r\n\r\n" + body;
    }

    private static RawHttp.Answer check(Socket socket) throws IOException {
        socket.getOutputStream().write(request().getBytes(StandardCharsets.UTF_8));
        socket.getOutputStream().flush();
        return RawHttp.read(socket.getInputStream());
    }

    private static int check(int port) throws IOException {
        return RawHttp.exchange(port, request().replace("Host: 127.0.0.1\r\n", "Host: 127.0.0.1\r\nConnection: close\r\n")).status();
    }
}
