package dev.tollgate.client.testing;

import dev.tollgate.check.CheckServiceApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.http.client.ReactorResourceFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One check-service pod: its own Spring Boot application (WebFlux on Netty, its own Lettuce client and pod
 * heartbeat) in the test's JVM, reached over real loopback HTTP. In-process, as check-service's chaos suite runs
 * its pods: a pod starts in 1-3 s, and a failed test leaves no process behind. {@link #close()} is the kill: the
 * server stops at once, its connections are closed, and its port refuses from then on.
 */
public final class CheckPod implements AutoCloseable {

    private final ConfigurableApplicationContext context;
    private final URI base;

    private CheckPod(ConfigurableApplicationContext context, URI base) {
        this.context = context;
        this.base = base;
    }

    /**
     * @param address   the loopback address to listen on (127.0.0.1, or 127.0.0.2 ... to give pods of one port
     *                  distinct addresses, as a headless Service's A records do)
     * @param port      0 for any free port
     * @param region    the pod registry's region: pods of one region count each other
     * @param rulesFile a static rules file
     * @param extra     further properties, e.g. {@code tollgate.check.deadline}
     */
    public static CheckPod start(String address, int port, List<String> redisSeeds, String region, String id, Path rulesFile,
                                 Map<String, String> extra) {
        return start(address, port, redisSeeds, region, id, rulesFile, extra, context -> {
        });
    }

    /** The same, with beans of the test's own in the pod's context (a {@link HeadersSeen}, say). */
    public static CheckPod start(String address, int port, List<String> redisSeeds, String region, String id, Path rulesFile,
                                 Map<String, String> extra, Consumer<GenericApplicationContext> beans) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("server.address", address);
        properties.put("server.port", Integer.toString(port));
        properties.put("server.shutdown", "immediate");
        // the Envoy RLS port too, on a free port of the same address: pods of one JVM cannot all take 8090
        properties.put("tollgate.grpc.address", address);
        properties.put("tollgate.grpc.port", "0");
        properties.put("spring.main.banner-mode", "off");
        properties.put("spring.main.register-shutdown-hook", "false");
        properties.put("logging.level.io.lettuce", "ERROR");
        properties.put("management.metrics.use-global-registry", "false");
        // the pod takes its cluster as Spring Boot does: host:port of each node, without the redis:// scheme
        properties.put("spring.data.redis.cluster.nodes", String.join(",", redisSeeds.stream().map(seed -> seed.replaceFirst("^rediss?://", "")).toList()));
        // generous for a loaded 2-core box; the clients' deadlines in the tests sit above the check's own
        properties.put("tollgate.redis.command-timeout", "200ms");
        properties.put("tollgate.check.deadline", "400ms");
        properties.put("tollgate.region.name", region);
        properties.put("tollgate.pods.id", id);
        properties.put("tollgate.rules.file", rulesFile.toAbsolutePath().toString());
        properties.put("tollgate.rules.service-url", "");
        // a test's pod, not one the autoscaler adds: the warm-up (on by default) would hold the build's cores for a minute
        properties.put("tollgate.warm-up.enabled", "false");
        properties.putAll(extra);
        // command-line arguments: builder properties would lose to the module's own application.yml
        List<String> args = new ArrayList<>();
        properties.forEach((key, value) -> args.add("--" + key + "=" + value));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(CheckServiceApplication.class)
                .web(WebApplicationType.REACTIVE)
                .logStartupInfo(false)
                .initializers(CheckPod::useOwnEventLoops, starting -> beans.accept((GenericApplicationContext) starting))
                .run(args.toArray(String[]::new));
        String bound = context.getEnvironment().getProperty("local.server.port");
        return new CheckPod(context, URI.create("http://" + address + ":" + bound));
    }

    /**
     * Each pod on event loops of its own. Boot's default uses Reactor Netty's global loops and disposes them when its
     * context closes: killing one pod of the JVM would then close every other pod's server with it.
     */
    public static void useOwnEventLoops(ConfigurableApplicationContext context) {
        ((GenericApplicationContext) context).registerBean(ReactorResourceFactory.class, () -> {
            ReactorResourceFactory loops = new ReactorResourceFactory();
            loops.setUseGlobalResources(false);
            loops.setShutdownQuietPeriod(java.time.Duration.ZERO);
            return loops;
        });
    }

    public static CheckPod start(List<String> redisSeeds, String region, String id, Path rulesFile) {
        return start("127.0.0.1", 0, redisSeeds, region, id, rulesFile, Map.of());
    }

    /** A port free on every one of the given loopback addresses, for pods that share a port as a Service's pods do. */
    public static int portFreeOn(String... addresses) {
        for (int attempt = 0; attempt < 50; attempt++) {
            int candidate;
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getByName(addresses[0]))) {
                candidate = probe.getLocalPort();
            } catch (IOException e) {
                throw new IllegalStateException("no free port on " + addresses[0], e);
            }
            if (freeOnAll(candidate, addresses)) {
                return candidate;
            }
        }
        throw new IllegalStateException("no port free on all of " + List.of(addresses));
    }

    private static boolean freeOnAll(int port, String... addresses) {
        for (String address : addresses) {
            try (ServerSocket probe = new ServerSocket()) {
                probe.setReuseAddress(true);
                probe.bind(new InetSocketAddress(InetAddress.getByName(address), port));
            } catch (IOException taken) {
                return false;
            }
        }
        return true;
    }

    public URI base() {
        return base;
    }

    public ConfigurableApplicationContext context() {
        return context;
    }

    public boolean running() {
        return context.isActive();
    }

    @Override
    public void close() {
        if (context.isActive()) {
            context.close();
        }
    }
}
