package dev.tollgate.check.warmup;

import dev.tollgate.check.api.CheckJson;
import dev.tollgate.check.api.LoopbackCheckServer;
import dev.tollgate.check.config.CheckProperties;
import dev.tollgate.check.envoy.LoopbackRlsServer;
import dev.tollgate.limiter.Limiter;
import dev.tollgate.limiter.LimiterSettings;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.store.InMemoryCounterStore;
import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.store.loopback.LoopbackCluster;
import io.grpc.Server;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.reactor.netty.NettyReactiveWebServerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.stereotype.Component;
import reactor.netty.DisposableServer;
import tools.jackson.databind.json.JsonMapper;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A pod's warm-up before it reports ready (see {@link CheckProperties.WarmUp}): once its ports are open, checks of
 * {@link WarmUpTraffic}'s rules are sent over loopback to a second check route and a second Envoy service, the same
 * code as the ports', on the check port's event loops, until HotSpot's JIT has settled or the longest warm-up is over.
 *
 * <p>They are spent on an engine of their own, whose store is a Lettuce cluster client like the pod's, connected to a
 * {@link LoopbackCluster} that answers from an in-memory store: so Lettuce's encoding, its event loop, the reply's parsing
 * and the hop back to the check are warmed with the rest, while not one check reaches the region's Redis, the pod's
 * engine, its breakers, deny cache, leases or meters. So the ports answer enforced checks while it runs, and a
 * check that arrives meanwhile is answered as it would be after; readiness alone waits for it (the pod is not ready
 * until it is warm). Its own meters are a registry of their own of the pod's kind, so the meters' code is warmed too.
 */
@Component
public final class WarmUp implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(WarmUp.class);
    private static final int HTTP_THREADS = 2;
    private static final int CONNECTIONS_PER_THREAD = 8;
    private static final int RLS_IN_FLIGHT = 32;
    private static final SecureRandom SECURE = new SecureRandom();
    /**
     * The warm-up store's command timeout: generous, since its calls are there to run the code of a store call, not to
     * time it, and a cold JVM's first calls take milliseconds; the check's own deadline still bounds every check.
     */
    private static final Duration STORE_TIMEOUT = Duration.ofSeconds(1);

    private final CheckProperties.WarmUp settings;
    private final boolean warmsHttp;
    private final boolean warmsGrpc;
    private final LimiterSettings limiterSettings;
    private final CheckJson check;
    private final JsonMapper json;
    private final ReactorResourceFactory loops;
    private final Clock clock;
    private final ObjectProvider<NettyReactiveWebServerFactory> webServer;
    private final CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
    private volatile String state = "not started";
    private volatile boolean done;
    private volatile boolean stopping;
    private volatile Thread runner;

    WarmUp(CheckProperties properties, LimiterSettings limiterSettings, CheckJson check, JsonMapper json, ReactorResourceFactory loops,
           Clock clock, ObjectProvider<NettyReactiveWebServerFactory> webServer) {
        this.settings = properties.warmUp();
        this.warmsHttp = settings.protocols().contains(CheckProperties.WarmUp.Protocol.HTTP);
        this.warmsGrpc = properties.grpc().enabled() && settings.protocols().contains(CheckProperties.WarmUp.Protocol.GRPC);
        this.limiterSettings = limiterSettings;
        this.check = check;
        this.json = json;
        this.loops = loops;
        this.clock = clock;
        this.webServer = webServer;
    }

    /** Whether the warm-up is over (or off): readiness waits for it. */
    public boolean done() {
        return done;
    }

    /** What it is doing or did, for readiness's details. */
    public String state() {
        return state;
    }

    /** Last to start: after the ports, so that the pod answers while it warms. */
    @Override
    public int getPhase() {
        return Integer.MAX_VALUE;
    }

    @Override
    public void start() {
        if (!settings.enabled()) {
            state = "off (tollgate.warm-up.enabled=false)";
            done = true;
            return;
        }
        String skipped = !(warmsHttp || warmsGrpc) ? "nothing to warm (tollgate.warm-up.protocols is grpc and the gRPC port is off)"
                : !compiler.isCompilationTimeMonitoringSupported() ? "this JVM does not report its compilation time" : null;
        if (skipped != null) {
            state = "skipped: " + skipped;
            log.info("warm-up {}", state);
            done = true;
            return;
        }
        Thread thread = new Thread(this::run, "tollgate-warm-up");
        thread.setDaemon(true);
        // below the ports' event loops, which answer real checks meanwhile
        thread.setPriority(Thread.NORM_PRIORITY - 1);
        runner = thread;
        thread.start();
    }

    @Override
    public void stop() {
        stopping = true;
        Thread thread = runner;
        if (thread != null) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean isRunning() {
        Thread thread = runner;
        return thread != null && thread.isAlive();
    }

    private void run() {
        long started = System.nanoTime();
        long deadline = started + settings.maxDuration().toNanos();
        long compileBefore = compiler.getTotalCompilationTime();
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        List<AutoCloseable> servers = new ArrayList<>();
        List<Thread> drivers = new ArrayList<>();
        String outcome = "the longest warm-up (" + settings.maxDuration() + ") ran out";
        HttpLoad http = null;
        RlsLoad rls = null;
        try {
            LoopbackCluster cluster = LoopbackCluster.start(new InMemoryCounterStore(() -> TimeUnit.MILLISECONDS.toMicros(clock.millis())));
            servers.add(cluster);
            log.info("warming up on a loopback cluster at {}, answered from memory: no warm-up check reaches the region's Redis", cluster.uri());
            RedisCounterStore store = RedisCounterStore.connect(RedisStoreSettings.of(List.of(cluster.uri())).withCommandTimeout(STORE_TIMEOUT));
            servers.add(store);
            Limiter engine = Limiter.builder(WarmUpTraffic.rules(), store)
                    .settings(limiterSettings)
                    .metrics(new LimiterMetrics(meters))
                    .clock(clock)
                    .livePods(() -> 1)
                    .build();
            if (warmsHttp) {
                // a token of this warm-up's own, so that the check port's token check runs as it does on a pod that requires one
                byte[] secret = new byte[16];
                SECURE.nextBytes(secret);
                String token = HexFormat.of().formatHex(secret);
                DisposableServer httpServer = LoopbackCheckServer.start(engine, check, json, meters, loops, token, webServer.getIfAvailable());
                servers.add(httpServer::disposeNow);
                InetSocketAddress httpAddress = (InetSocketAddress) httpServer.address();
                http = new HttpLoad(httpAddress, WarmUpTraffic.httpRequests("127.0.0.1:" + httpAddress.getPort(), "/v1/ratelimit:check", token),
                        CONNECTIONS_PER_THREAD);
                for (int i = 0; i < HTTP_THREADS; i++) {
                    int offset = i * WarmUpTraffic.KEYS / HTTP_THREADS;
                    HttpLoad load = http;
                    drivers.add(driver("tollgate-warm-up-http-" + i, () -> load.run(offset, () -> over(deadline))));
                }
            }
            if (warmsGrpc) {
                Server rlsServer = LoopbackRlsServer.start(engine, WarmUpTraffic.descriptors(), WarmUpTraffic.rules(), meters);
                servers.add(() -> rlsServer.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
                rls = new RlsLoad(new InetSocketAddress("127.0.0.1", rlsServer.getPort()), WarmUpTraffic.rlsRequests(), RLS_IN_FLIGHT);
                RlsLoad load = rls;
                drivers.add(driver("tollgate-warm-up-grpc", () -> load.run(() -> over(deadline))));
            }
            drivers.forEach(Thread::start);
            Settling settling = new Settling(settings.quietFor(), settings.quietCompile(), settings.minChecks());
            while (!over(deadline)) {
                Thread.sleep(250);
                long checks = answered(http, rls);
                long compiled = compiler.getTotalCompilationTime() - compileBefore;
                state = String.format(Locale.ROOT, "warming up: %d checks in %.1f s, %.1f s of JIT compilation", checks, seconds(started),
                        compiled / 1000.0);
                if (settling.settled(System.nanoTime(), checks, compiled)) {
                    outcome = "the JIT settled";
                    break;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            outcome = "interrupted";
        } catch (RuntimeException e) {
            // a warm-up that cannot run must not keep a pod that enforces from serving
            outcome = "failed: " + e;
            log.warn("warm-up failed; the pod reports ready without it", e);
        } finally {
            stopping = true;
            for (Thread driver : drivers) {
                join(driver);
            }
            // the ports first, the store they spend on last
            for (int i = servers.size() - 1; i >= 0; i--) {
                close(servers.get(i));
            }
            meters.close();
            long checks = answered(http, rls);
            long failed = (http == null ? 0 : http.failed.sum()) + (rls == null ? 0 : rls.failed.sum());
            state = String.format(Locale.ROOT, "warmed up in %.1f s (%s): %d checks%s, %.1f s of JIT compilation", seconds(started), outcome,
                    checks, failed == 0 ? "" : " (" + failed + " not answered 200)", (compiler.getTotalCompilationTime() - compileBefore) / 1000.0);
            log.info(state);
            done = true;
        }
    }

    private boolean over(long deadline) {
        return stopping || System.nanoTime() - deadline >= 0;
    }

    private static Thread driver(String name, Runnable load) {
        Thread thread = new Thread(load, name);
        thread.setDaemon(true);
        thread.setPriority(Thread.NORM_PRIORITY - 1);
        return thread;
    }

    private static long answered(HttpLoad http, RlsLoad rls) {
        return (http == null ? 0 : http.answered.sum()) + (rls == null ? 0 : rls.answered.sum());
    }

    private static double seconds(long startedNanos) {
        return (System.nanoTime() - startedNanos) / 1e9;
    }

    private static void join(Thread thread) {
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void close(AutoCloseable server) {
        try {
            server.close();
        } catch (Exception e) {
            log.debug("closing a warm-up server: {}", e.toString());
        }
    }
}
