package dev.tollgate.check.chaos;

import dev.tollgate.check.CheckServiceApplication;
import dev.tollgate.check.config.CheckProperties;
import dev.tollgate.limiter.pods.PodRegistry;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * A scenario's check-service pods: each its own Spring Boot application (WebFlux on Netty, its own Lettuce client,
 * breakers, fallback buckets and pod heartbeat), started in the test's JVM.
 *
 * <p>In-process rather than as JVMs from the packaged jar, for three reasons: a pod starts in 1-3 s instead of
 * 5-15 s on a loaded 2-core box, which keeps the whole suite within its 4 minutes; a hang can be shown with the
 * pod's own threads ({@link Threads}) and state; and a failed test cannot leave a pod process behind. What the suite
 * tests sits below the process boundary anyway (Lettuce, the engine, WebFlux); the faults are done to real
 * {@code redis-server} processes, and the pods are reached over real loopback HTTP.
 */
final class Pods implements AutoCloseable {

    /**
     * The pods' Redis command timeout and the per-check deadline (issue 11: "a verdict or a problem within a
     * configured budget"). The pods are given only the timeout: the deadline is the one check-service derives from
     * it (five timeouts), as in production, and {@link #start} checks that it is this one.
     *
     * @param stallThreshold the shortest stall of the JVM that {@link BoxStalls} counts as the box's
     */
    record Timing(String name, Duration commandTimeout, Duration deadline, Duration stallThreshold) {

        /**
         * The dev stack's: a timeout 100 times a store call's time, so that on a loaded 2-core box only a fault
         * makes a call outlast it. A stall of half the timeout can push a call in flight past it.
         */
        static final Timing DEV = new Timing("dev", Duration.ofMillis(100), Duration.ofMillis(500), Duration.ofMillis(50));

        /**
         * Production's: what a frozen shard costs a check there, and what the command timer's tick must honour (Lettuce's
         * default 100 ms tick fired a 5 ms timeout after the deadline). The box's ordinary scheduling delays outlast 5 ms
         * now and then, on any shard; the pods count those calls themselves (see {@link ShardFailures}). What they cannot
         * count is a stall long enough for the deadline to race the timeout, {@code deadline - timeout}: that is the
         * stall the box is blamed for.
         */
        static final Timing PRODUCTION = new Timing("production", Duration.ofMillis(5), Duration.ofMillis(25), Duration.ofMillis(20));

        /**
         * Whether a stall too short for {@link BoxStalls} to count can outlast the store timeout on a healthy shard:
         * then only the pods know of the calls it timed out, and the scenario asks them ({@link ShardFailures}).
         */
        boolean podsCountTheBoxsTimeouts() {
            return commandTimeout.compareTo(stallThreshold) < 0;
        }

        @Override
        public String toString() {
            return name + " (store timeout " + commandTimeout.toMillis() + " ms, deadline " + deadline.toMillis() + " ms)";
        }
    }

    /**
     * The pod-count floor that sizes fallback buckets before a pod has counted its peers (issue 11: "a configured
     * pod-count floor (e.g. the HPA minimum), never 1"). The suite runs two pods, its HPA minimum. The property's
     * name is the integrator's to settle; until it exists Spring ignores it.
     */
    static final String POD_COUNT_FLOOR_PROPERTY = "tollgate.pods.min";
    static final int COUNT = 2;

    /** One pod: its application context and where it listens. */
    record Pod(int index, String id, ConfigurableApplicationContext context, URI base) {

        URI check() {
            return base.resolve("/v1/ratelimit:check");
        }

        URI readiness() {
            return base.resolve("/actuator/health/readiness");
        }

        /** The live pod count this pod sizes leases and fallback by, or -1 if it has no registry. */
        int livePods() {
            return context.getBeanProvider(PodRegistry.class).stream().findFirst().map(PodRegistry::getAsInt).orElse(-1);
        }
    }

    /**
     * How the scenario's pods are configured.
     *
     * @param seeds       the cluster's nodes ({@code 127.0.0.1:port}, no credentials)
     * @param password    the cluster's password, or null
     * @param leases      {@code tollgate.optimizations.leases}
     * @param rulesUrl    rules-service's URL (then {@code snapshotFile} applies), or null for the static rules file
     */
    record Config(List<String> seeds, String password, boolean leases, String rulesUrl, Path snapshotFile) {

        static Config of(List<String> seeds, boolean leases) {
            return new Config(seeds, null, leases, null, null);
        }

        Config withPassword(String value) {
            return new Config(seeds, value, leases, rulesUrl, snapshotFile);
        }

        Config watching(String url, Path snapshot) {
            return new Config(seeds, password, leases, url, snapshot);
        }
    }

    private final List<Pod> pods;

    private Pods(List<Pod> pods) {
        this.pods = List.copyOf(pods);
    }

    static Pods start(String scenario, Timing timing, Config config) {
        List<Pod> started = new ArrayList<>();
        try {
            for (int i = 0; i < COUNT; i++) {
                started.add(startOne(scenario, i, timing, config));
            }
            return new Pods(started);
        } catch (RuntimeException e) {
            started.forEach(pod -> closeQuietly(pod, e));
            throw e;
        }
    }

    List<Pod> all() {
        return pods;
    }

    Pod get(int index) {
        return pods.get(index);
    }

    int size() {
        return pods.size();
    }

    /** Waits until every pod counts every pod: until then a pod sizes its fallback for fewer peers than there are. */
    void awaitPodsCounted(Duration timeout) {
        awaitTrue("every pod to count " + pods.size() + " live pods", timeout,
                () -> pods.stream().allMatch(pod -> pod.livePods() == pods.size()));
    }

    private static Pod startOne(String scenario, int index, Timing timing, Config config) {
        String id = "chaos-" + scenario + "-" + index;
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("server.address", "127.0.0.1");
        properties.put("server.port", "0");
        properties.put("server.shutdown", "immediate");
        properties.put("spring.main.banner-mode", "off");
        properties.put("spring.main.register-shutdown-hook", "false");
        // Lettuce logs every refused reconnect and topology refresh at WARN with a stack trace: thousands of lines
        // that the faults cause on purpose and that would bury the report (set here, as every pod's start
        // configures the JVM's logging again)
        properties.put("logging.level.io.lettuce", "ERROR");
        // each pod's meters in its own registry, not also in one JVM-wide composite
        properties.put("management.metrics.use-global-registry", "false");
        // to read what an authorized operator sees (shipped: details for authorized callers only)
        properties.put("management.endpoint.health.show-details", "always");
        properties.put("spring.data.redis.cluster.nodes", String.join(",", config.seeds()));
        if (config.password() != null) {
            properties.put("spring.data.redis.password", config.password());
        }
        properties.put("tollgate.redis.command-timeout", timing.commandTimeout().toMillis() + "ms");
        properties.put("tollgate.optimizations.leases", Boolean.toString(config.leases()));
        // one pod registry per scenario: pods of an earlier scenario (other ports, other cluster) never count
        properties.put("tollgate.region.name", "chaos-" + scenario);
        // the default id is host name + PID, the same for every pod in this JVM: they would count as one
        properties.put("tollgate.pods.id", id);
        properties.put(POD_COUNT_FLOOR_PROPERTY, Integer.toString(COUNT));
        if (config.rulesUrl() == null) {
            properties.put("tollgate.rules.file", ChaosRules.FILE.toString());
            properties.put("tollgate.rules.service-url", "");
        } else {
            properties.put("tollgate.rules.file", "");
            properties.put("tollgate.rules.service-url", config.rulesUrl());
            properties.put("tollgate.rules.token", "chaos-watch-token");
            properties.put("tollgate.rules.snapshot-file", config.snapshotFile().toString());
        }
        // command-line arguments, not builder properties: those would lose to the module's own application.yml
        List<String> args = new ArrayList<>();
        properties.forEach((key, value) -> args.add("--" + key + "=" + value));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(CheckServiceApplication.class)
                .web(WebApplicationType.REACTIVE)
                .logStartupInfo(false)
                .run(args.toArray(String[]::new));
        String port = context.getEnvironment().getProperty("local.server.port");
        CheckProperties settings = context.getBean(CheckProperties.class);
        Duration deadline = settings.check().deadlineOr(settings.redis().commandTimeout());
        if (!deadline.equals(timing.deadline())) {
            context.close();
            throw new IllegalStateException(id + " derives a deadline of " + deadline.toMillis() + " ms from the store timeout, not the "
                    + timing + " the ledger holds it to");
        }
        return new Pod(index, id, context, URI.create("http://127.0.0.1:" + port));
    }

    static void awaitTrue(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("gave up after " + timeout.toMillis() + " ms waiting for " + what);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }

    private static void closeQuietly(Pod pod, Throwable into) {
        try {
            pod.context().close();
        } catch (RuntimeException e) {
            into.addSuppressed(e);
        }
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        for (int i = pods.size() - 1; i >= 0; i--) {
            Pod pod = pods.get(i);
            try {
                pod.context().close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
