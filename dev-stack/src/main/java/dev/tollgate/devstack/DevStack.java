package dev.tollgate.devstack;

import dev.tollgate.devstack.app.PortCheck;
import dev.tollgate.devstack.app.RunningApp;
import dev.tollgate.devstack.app.Service;
import dev.tollgate.devstack.app.ServiceLauncher;
import dev.tollgate.devstack.demo.AdminClient;
import dev.tollgate.devstack.demo.DemoRules;
import dev.tollgate.devstack.demo.Walkthrough;
import dev.tollgate.testsupport.postgres.Postgres;
import dev.tollgate.testsupport.redis.Node;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * Tollgate on a laptop with only a JDK 17, in one JVM: an embedded PostgreSQL, a real 3-primary Redis
 * Cluster, rules-service, two (or more) check-service pods and the budget-rebalancer, with the design's
 * demo rules loaded. {@code java -jar dev-stack/target/tollgate-dev-stack.jar}; Ctrl-C stops all of it.
 *
 * <p>The stack stops in the reverse order of its start: rebalancer, pods, rules-service, then the Redis
 * servers and PostgreSQL, so that no service logs errors about a store that went first. A Ctrl-C during
 * the start waits for the step under way and then stops what is up: no redis-server or postgres process
 * is left behind either way.
 */
public final class DevStack implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DevStack.class);
    private static final Duration PODS_READY_TIMEOUT = Duration.ofSeconds(20);
    /** Envoy's rate limit service (RLS v3) of the default stack's first pod, as in production. */
    private static final int DEFAULT_GRPC_PORT = 8090;
    /** A key no demo walkthrough uses: the readiness probe spends from it. */
    private static final String PROBE_KEY = "dev-stack-readiness-probe";

    private final StackOptions options;
    private final PrintStream out;
    private final Object lifecycle = new Object();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Thread shutdownHook = new Thread(this::close, "tollgate-dev-stack-stop");
    private final List<RunningApp> pods = new ArrayList<>();
    /**
     * The pods' reader's token (explain, the hot keys), new for every start: the console's key page asks the first pod
     * with it. Random rather than a known default, since a look shows any account's limits and counters.
     */
    private final String readerToken = randomToken();

    private boolean closed;
    private Path workDirectory;
    private Postgres postgres;
    private RedisCluster redis;
    private RunningApp rulesService;
    private RunningApp rebalancer;
    private Map<String, String> ruleEtags = Map.of();
    private Duration readyIn;

    private DevStack(StackOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
        // before anything starts: a JVM stopped half-way through the start must still stop what is up
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    public static void main(String[] args) {
        if (Arrays.asList(args).contains("--help")) {
            System.out.print(StackOptions.USAGE);
            return;
        }
        StackOptions options;
        try {
            options = StackOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("tollgate dev stack: " + e.getMessage());
            System.err.print(StackOptions.USAGE);
            System.exit(2);
            return;
        }
        DevStack stack;
        try {
            stack = start(options, System.out);
        } catch (RuntimeException e) {
            System.err.println();
            System.err.println("tollgate dev stack did not start: " + e.getMessage());
            System.exit(1);
            return;
        }
        System.out.println(stack.readyText(Clock.systemUTC()));
        stack.awaitStopped();
    }

    /**
     * Parses the options as {@link #main} does and starts the stack; the caller closes it. This is the
     * entry the tests use, so they start exactly what the README's command starts.
     */
    public static DevStack start(String... args) {
        return start(StackOptions.parse(args), System.out);
    }

    static DevStack start(StackOptions options, PrintStream out) {
        DevStack stack = new DevStack(options, out);
        try {
            stack.startAll();
            return stack;
        } catch (RuntimeException e) {
            stack.close();
            throw e;
        }
    }

    private void startAll() {
        long started = System.nanoTime();
        PortCheck.requireFree(options.address(), options.servicePorts());
        step("PostgreSQL and a 3-primary Redis Cluster", this::startStores);
        // the console's "why would a check be denied now?" asks the first pod, with the pods' reader's token
        Map<String, String> rulesProperties = new LinkedHashMap<>();
        rulesProperties.put("tollgate.console.explain.url", "http://" + curlHost() + ":" + options.checkPorts().get(0));
        rulesProperties.put("tollgate.console.explain.reader-token", readerToken);
        // after the stack's choice, so that a --rules-service.<property> option wins
        rulesProperties.putAll(options.propertiesFor(Service.RULES_SERVICE));
        step("rules-service on " + options.rulesPort(), () -> rulesService = ServiceLauncher.rulesService(options.address(),
                options.rulesPort(), database(), redis.clusterNodes(), options.devToken(), rulesProperties));
        if (options.demoRules()) {
            // before the pods start, so that each one's first watch call brings the demo rules
            step("demo rules", () -> ruleEtags = DemoRules.load(admin()));
        }
        List<Integer> checkPorts = options.checkPorts();
        for (int i = 0; i < checkPorts.size(); i++) {
            String name = Service.CHECK_SERVICE.id() + " #" + (i + 1);
            int port = checkPorts.get(i);
            // the default stack's first pod answers Envoy on the default 8090; other pods, and stacks on other ports, on any
            // free port (each pod logs the one it took)
            int grpcPort = i == 0 && port == StackOptions.DEFAULT_BASE_PORT ? DEFAULT_GRPC_PORT : 0;
            Map<String, String> properties = new LinkedHashMap<>();
            properties.put("tollgate.access.reader-tokens", readerToken);
            if (options.canaryPod(i)) {
                properties.put("tollgate.rules.canary", "true");
            }
            // after the stack's choice, so that a --check-service.<property> option wins
            properties.putAll(options.propertiesFor(Service.CHECK_SERVICE));
            step(name + (options.canaryPod(i) ? " (canary)" : "") + " on " + port, () -> pods.add(ServiceLauncher.checkService(name,
                    options.address(), port, grpcPort, redis.clusterNodes(), rulesService.baseUrl(), options.devToken(),
                    workDirectory.resolve("rules-snapshot-" + port + ".json"), properties)));
        }
        step("budget-rebalancer on " + options.rebalancerPort(), () -> rebalancer = ServiceLauncher.rebalancer(options.address(),
                options.rebalancerPort(), database(), redis.clusterNodes(), options.propertiesFor(Service.BUDGET_REBALANCER)));
        if (options.demoRules()) {
            step("every pod enforcing the demo rules", this::awaitPodsEnforceRules);
        }
        readyIn = Duration.ofNanos(System.nanoTime() - started);
    }

    /** One start step, not overlapping a {@link #close()}: a stop waits for the step under way, then stops what is up. */
    private void step(String what, Runnable action) {
        synchronized (lifecycle) {
            if (closed) {
                throw new IllegalStateException("the dev stack was stopped while starting");
            }
            long started = System.nanoTime();
            out.println("[dev-stack] starting " + what + " ...");
            action.run();
            out.printf("[dev-stack] %s up (%.1f s)%n", what, (System.nanoTime() - started) / 1e9);
        }
    }

    /** The two stores start in parallel: PostgreSQL's initdb and the cluster's formation each take seconds. */
    private void startStores() {
        try {
            workDirectory = Files.createTempDirectory("tollgate-dev-stack-");
        } catch (IOException e) {
            throw new UncheckedIOException("could not create the dev stack's work directory", e);
        }
        ExecutorService starter = Executors.newFixedThreadPool(2, runnable -> {
            Thread thread = new Thread(runnable, "tollgate-dev-stack-start");
            thread.setDaemon(true);
            return thread;
        });
        try {
            Future<Postgres> database = starter.submit(Postgres::startPrivate);
            Future<RedisCluster> cluster = starter.submit(() -> RedisCluster.builder().start());
            // both are awaited (and kept) before either failure is thrown, so close() stops the one that did start
            RuntimeException failure = null;
            try {
                postgres = database.get();
            } catch (ExecutionException e) {
                failure = new IllegalStateException("embedded PostgreSQL did not start: " + e.getCause().getMessage(), e.getCause());
            }
            try {
                redis = cluster.get();
            } catch (ExecutionException e) {
                failure = new IllegalStateException("the Redis Cluster did not start: " + e.getCause().getMessage(), e.getCause());
            }
            if (failure != null) {
                throw failure;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the stores", e);
        } finally {
            starter.shutdown();
        }
    }

    /** Until every pod answers a demo rule as known: then the printed curl commands work at once. */
    private void awaitPodsEnforceRules() {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + PODS_READY_TIMEOUT.toNanos();
        for (RunningApp pod : pods) {
            String last = "";
            while (true) {
                try {
                    HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(pod.baseUrl() + "/v1/ratelimit:check"))
                            .timeout(Duration.ofSeconds(5))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"enterprise-global\","
                                    + "\"key\":\"" + PROBE_KEY + "\"}]}"))
                            .build(), HttpResponse.BodyHandlers.ofString());
                    last = response.statusCode() + " " + response.body();
                    if (response.statusCode() == 200 && !response.body().contains("unknown_rule")) {
                        break;
                    }
                } catch (IOException e) {
                    last = e.toString();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for the pods", e);
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(pod.name() + " did not enforce the demo rules within " + PODS_READY_TIMEOUT.toSeconds()
                            + " s; its last answer: " + last);
                }
                sleep(50);
            }
        }
    }

    /** Where everything is, the token, and the walkthrough's commands. */
    public String readyText(Clock clock) {
        String host = curlHost();
        StringBuilder text = new StringBuilder("\n");
        long sinceJvm = System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime();
        text.append(String.format("Tollgate dev stack ready in %.1f s (%.1f s after the JVM started).%n", readyIn.toMillis() / 1e3, sinceJvm / 1e3));
        List<String> podUrls = new ArrayList<>();
        for (int i = 0; i < pods.size(); i++) {
            podUrls.add("http://" + host + ":" + pods.get(i).port() + (options.canaryPod(i) ? " (canary)" : ""));
        }
        text.append(String.format("  %-18s %s  (%d pod%s, one Redis Cluster)%n", Service.CHECK_SERVICE.id(),
                String.join(", ", podUrls), pods.size(), pods.size() == 1 ? "" : "s"));
        text.append(String.format("  %-18s http://%s:%d  (dev profile)  admin token: %s%n", Service.RULES_SERVICE.id(), host,
                rulesService.port(), options.devToken()));
        text.append(String.format("  %-18s %s  (POST /v1/ratelimit:explain and GET /v1/hot-keys on the pods; the console asks %s)%n",
                "reader token", readerToken, podUrls.get(0).replace(" (canary)", "")));
        text.append(String.format("  %-18s http://%s:%d  (region shares from usage, every 10 s)%n", Service.BUDGET_REBALANCER.id(), host,
                rebalancer.port()));
        text.append(String.format("  %-18s %s%n", "Redis Cluster", String.join(", ", redis.nodes().stream().map(Node::hostAndPort).toList())));
        text.append(String.format("  %-18s %s  (user %s)%n", "PostgreSQL", postgres.jdbcUrl(), postgres.username()));
        if (options.demoRules()) {
            text.append("Demo rules:\n");
            DemoRules.RULES.forEach(rule -> text.append(String.format("  %-18s %s%n", rule.id(), rule.summary())));
            text.append("\n").append(new Walkthrough(host, options.checkPorts(), rulesService.port(), options.devToken(), ruleEtags).commands(clock));
        }
        text.append("\nStop with Ctrl-C: the services, every redis-server and PostgreSQL stop with it.\n");
        return text.toString();
    }

    /** Blocks until the stack is closed (by Ctrl-C's shutdown hook, or {@link #close()}). */
    public void awaitStopped() {
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops everything that is up, pods first and stores last; safe to call twice and from the shutdown hook. */
    @Override
    public void close() {
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
            long started = System.nanoTime();
            out.println("[dev-stack] stopping ...");
            List<AutoCloseable> order = new ArrayList<>();
            Optional.ofNullable(rebalancer).ifPresent(order::add);
            List<RunningApp> reversed = new ArrayList<>(pods);
            Collections.reverse(reversed);
            order.addAll(reversed);
            Optional.ofNullable(rulesService).ifPresent(order::add);
            Optional.ofNullable(redis).ifPresent(order::add);
            Optional.ofNullable(postgres).ifPresent(order::add);
            for (AutoCloseable part : order) {
                try {
                    part.close();
                } catch (Exception e) {
                    log.warn("could not stop {}: {}", part, e.toString());
                }
            }
            deleteWorkDirectory();
            out.printf("[dev-stack] stopped (%.1f s)%n", (System.nanoTime() - started) / 1e9);
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shutdownInProgress) {
            // this is the hook, or the JVM is already running it
        }
        stopped.countDown();
    }

    public StackOptions options() {
        return options;
    }

    /** The check-service pods, first instance first. */
    public List<RunningApp> checkServices() {
        return List.copyOf(pods);
    }

    /** The pods' reader's token, which the console's key page asks the first pod with. */
    public String readerToken() {
        return readerToken;
    }

    public RunningApp rulesService() {
        return rulesService;
    }

    public RunningApp rebalancer() {
        return rebalancer;
    }

    public RedisCluster redis() {
        return redis;
    }

    public Postgres postgres() {
        return postgres;
    }

    /** The rules store as rules-service (and the rebalancer) reach it. */
    public ServiceLauncher.Database database() {
        return new ServiceLauncher.Database(postgres.jdbcUrl(), postgres.username(), postgres.password());
    }

    /** Where the pods keep their rules snapshots; removed on close. */
    public Path workDirectory() {
        return workDirectory;
    }

    /** From the start of {@link #start} until every pod enforced the demo rules. */
    public Duration readyIn() {
        return readyIn;
    }

    /** A client for rules-service's admin API with the dev token. */
    public AdminClient admin() {
        return new AdminClient(rulesService.baseUrl(), options.devToken());
    }

    private String curlHost() {
        String address = options.address();
        if (address.equals("0.0.0.0") || address.equals("::") || address.equals("[::]")) {
            return "127.0.0.1";
        }
        return address.contains(":") ? "[" + address + "]" : address;
    }

    private void deleteWorkDirectory() {
        if (workDirectory == null) {
            return;
        }
        try (Stream<Path> paths = Files.walk(workDirectory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            log.debug("could not remove {}: {}", workDirectory, e.toString());
        }
    }

    private static String randomToken() {
        byte[] bytes = new byte[16];
        new SecureRandom().nextBytes(bytes);
        return "reader-" + HexFormat.of().formatHex(bytes);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
