package dev.tollgate.rules;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.rule.RuleSnapshot;
import dev.tollgate.common.wire.WireFormat;
import dev.tollgate.limiter.Limiter;
import dev.tollgate.limiter.hotkeys.HotKeysPublisher;
import dev.tollgate.limiter.pods.PodRegistry;
import dev.tollgate.limiter.rules.SnapshotRuleBook;
import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.store.RedisStoreSettings;
import dev.tollgate.limiter.usage.UsageRecorder;
import dev.tollgate.limiter.usage.UsageSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A gateway pod as check-service runs one, from the same parts: the engine on the real Redis Cluster,
 * its rules from rules-service's watch feed (long polls with {@code since} = the revision applied, which
 * is how rules-service sees what a pod enforces), and its usage recorder flushing to the region's Redis
 * every second. It sends a steady stream of checks for one key, so the console has live buckets, rates
 * and shadow denies to show.
 */
final class TestPod implements AutoCloseable {

    private static final JsonMapper JSON = WireFormat.configure(JsonMapper.builder()).build();

    private final SnapshotRuleBook rules;
    private final RedisCounterStore store;
    private final UsageRecorder usage;
    private final Limiter limiter;
    private final PodRegistry registry;
    private final HotKeysPublisher hotKeys;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread watcher;
    private final Thread traffic;

    /**
     * @param checks the entries of each check it sends, about {@code perSecond} times a second
     */
    TestPod(int rulesServicePort, String watchToken, String region, List<String> seeds, String domain, List<CheckEntry> checks, int perSecond) {
        this.rules = new SnapshotRuleBook(Clock.systemUTC(), region, 1.0);
        RedisStoreSettings redis = RedisStoreSettings.of(seeds).withCommandTimeout(Duration.ofSeconds(2));
        this.store = RedisCounterStore.connect(redis);
        this.usage = UsageRecorder.start(redis, UsageSettings.DEFAULTS, new SimpleMeterRegistry());
        this.registry = new PodRegistry(store, region, "test-pod", Duration.ofSeconds(1), Duration.ofSeconds(5), 1);
        this.limiter = Limiter.builder(rules, store).usage(usage).livePods(registry).build();
        // its top keys, for the console's hot keys page, as a check-service pod publishes them
        this.hotKeys = new HotKeysPublisher(store, limiter.hotKeys(), region, "test-pod", Duration.ofSeconds(1));
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        this.watcher = daemon("test-pod-watch", () -> {
            while (running.get()) {
                watchOnce(http, rulesServicePort, watchToken);
            }
        });
        CheckRequest request = new CheckRequest(domain, checks);
        long pauseMs = 1000L / perSecond;
        this.traffic = daemon("test-pod-traffic", () -> {
            while (running.get()) {
                if (rules.loaded()) {
                    try {
                        limiter.check(request).get(5, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        // a slow check on a loaded machine: the next one goes on
                    }
                }
                sleep(pauseMs);
            }
        });
    }

    /** The revision of the rules this pod enforces; -1 before the first. */
    long revision() {
        return rules.revision().orElse(-1);
    }

    private void watchOnce(HttpClient http, int port, String token) {
        long since = revision();
        URI uri = URI.create("http://127.0.0.1:" + port + "/v1/watch" + (since >= 0 ? "?since=" + since : ""));
        try {
            HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                    .header("Authorization", "Bearer " + token).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
            if (response.statusCode() == 200) {
                rules.apply(JSON.readValue(response.body(), RuleSnapshot.class));
            } else if (response.statusCode() != 304) {
                sleep(200);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running.set(false);
        } catch (Exception e) {
            sleep(200);
        }
    }

    private static Thread daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        traffic.join(5_000);
        watcher.interrupt();
        usage.close();
        hotKeys.close();
        registry.close();
        store.close();
    }
}
