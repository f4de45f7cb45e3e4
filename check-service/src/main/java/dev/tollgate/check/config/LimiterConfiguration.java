package dev.tollgate.check.config;

import dev.tollgate.check.access.ReaderTokens;
import dev.tollgate.check.access.ServiceTokens;
import dev.tollgate.check.api.CheckLoops;
import dev.tollgate.limiter.rules.DescriptorBook;
import dev.tollgate.check.rules.ClientCredentialsToken;
import dev.tollgate.check.rules.RulesFeed;
import dev.tollgate.check.rules.EnvoyConfigDirectory;
import dev.tollgate.check.rules.RulesFile;
import dev.tollgate.check.rules.RulesWatcher;
import dev.tollgate.check.rules.WatchToken;
import dev.tollgate.limiter.Limiter;
import dev.tollgate.limiter.hotkeys.HotKeys;
import dev.tollgate.limiter.hotkeys.HotKeysPublisher;
import dev.tollgate.limiter.LimiterSettings;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.metrics.RedisCommandLatency;
import dev.tollgate.limiter.pods.PodRegistry;
import dev.tollgate.limiter.usage.UsageRecorder;
import dev.tollgate.limiter.usage.UsageSettings;
import dev.tollgate.limiter.rules.RuleBook;
import dev.tollgate.limiter.rules.SnapshotRuleBook;
import dev.tollgate.limiter.rules.StaticRuleBook;
import dev.tollgate.store.RedisCounterStore;
import dev.tollgate.limiter.usage.RedisUsageStore;
import dev.tollgate.store.spring.ClusterClients;
import dev.tollgate.store.spring.RetiredProperties;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Transports;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.HashedWheelTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.security.oauth2.core.ClientAuthenticationMethod;
import org.springframework.util.StringUtils;
import org.springframework.web.client.RestClient;
import reactor.core.Disposable;
import reactor.netty.resources.LoopResources;

import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

/** Assembles the engine: the region's Redis Cluster, the rules, and the metrics registry. */
@Configuration(proxyBeanMethods = false)
class LimiterConfiguration {

    /**
     * The store on the native client of Spring Data Redis's Lettuce connection factory, which Spring Boot
     * configures from {@code spring.data.redis.*} (cluster nodes, credentials, TLS, timeouts); the store
     * lays its own options over the client's (command timeout, no queueing while disconnected). Starts
     * connecting and returns at once, so that the first attempt (Netty's and Lettuce's cluster classes, the
     * slot map, the handshakes: 1-3 s of a cold start) runs while the rest of the context is built;
     * {@code StoreFirstAttempt} waits for its outcome before the ports open. With tracing on, each command
     * is a span under the check that sent it: Spring Boot hands the client Lettuce's Micrometer tracing
     * (command arguments, which hold callers' keys, left out).
     */
    @Bean(destroyMethod = "close")
    RedisCounterStore counterStore(LettuceConnectionFactory redis, CheckProperties properties, Environment environment) {
        RetiredProperties.refuse(environment, RetiredProperties.REDIS);
        // a connection per check loop: the checks' calls are sent from those loops (see storeOnCheckLoops)
        return RedisCounterStore.start(ClusterClients.of(redis), ClusterClients.nodes(redis), properties.redis().settings().withLanes());
    }

    /** The store's reconnect delay (capped at half a second) on the Lettuce resources Spring Boot builds. */
    @Bean
    ClientResourcesBuilderCustomizer storeReconnectDelay() {
        return resources -> resources.reconnectDelay(RedisCounterStore.reconnectDelay());
    }

    /**
     * The command timeout's timer, at a millisecond's tick instead of Lettuce's 100 ms, so that the 5 ms store
     * timeout fires at 5 ms and the shard's breaker counts it then (see {@link RedisCounterStore#commandTimer()}).
     * Stopped after the resources that use it are shut down: they depend on it.
     */
    @Bean(destroyMethod = "stop")
    HashedWheelTimer storeCommandTimer() {
        return RedisCounterStore.commandTimer();
    }

    @Bean
    ClientResourcesBuilderCustomizer storeCommandTimerCustomizer(HashedWheelTimer storeCommandTimer) {
        return resources -> resources.timer(storeCommandTimer);
    }

    /** Concurrent script calls to one shard in one write (see {@link RedisCounterStore#batchedWrites()}). */
    @Bean
    ClientResourcesBuilderCustomizer storeBatchedWrites() {
        return resources -> resources.nettyCustomizer(RedisCounterStore.batchedWrites());
    }

    /**
     * The store's channels on the check port's event loops (see {@link RedisCounterStore#sharedLoops}): a check
     * that arrives on the loop its shard's connection is on is sent, answered and written back on that one thread.
     * Only on the pod's own loops ({@link CheckLoops}, which outlive the store's client), and only when they are of
     * the transport Lettuce chose (both native epoll, or both NIO); else Lettuce's own. An embedder's resource
     * factory disposes its loops when its lifecycle stops, before the store's client closes, and Lettuce's shutdown
     * then waits for ever on channels whose loop is gone.
     */
    @Bean
    ClientResourcesBuilderCustomizer storeOnCheckLoops(ReactorResourceFactory factory, CheckLoops own) {
        return resources -> {
            LoopResources loops = factory.getLoopResources();
            if (!own.lentTo(loops)) {
                return;
            }
            EventLoopGroup workers = loops.onServer(LoopResources.DEFAULT_NATIVE);
            if (loops.onChannelClass(SocketChannel.class, workers) == Transports.socketChannelClass()) {
                resources.eventLoopGroupProvider(RedisCounterStore.sharedLoops(workers));
            }
        };
    }

    /** Every Redis command's latency by cluster node and command type ({@code tollgate.redis.commands}). */
    @Bean
    RedisCommandLatency redisCommandLatency(MeterRegistry registry) {
        return new RedisCommandLatency(registry);
    }

    /** Lettuce records into it, on every client built on the resources Spring Boot builds (the store's, the usage flush's). */
    @Bean
    ClientResourcesBuilderCustomizer redisCommandLatencyRecorder(RedisCommandLatency latency) {
        return resources -> resources.commandLatencyRecorder(latency);
    }

    /** A node that leaves the cluster takes its latency series with it. */
    @Bean(destroyMethod = "dispose")
    Disposable redisCommandLatencyTopology(RedisCommandLatency latency, ClientResources resources) {
        return latency.follow(resources.eventBus());
    }

    /** Wall time for the pod: overrides' expiry, fixed windows' names, the breakers, tokens, readiness's grace. */
    @Bean
    @ConditionalOnMissingBean
    Clock clock() {
        return Clock.systemUTC();
    }

    @Bean
    RuleBook ruleBook(CheckProperties properties, Clock clock) {
        if (properties.rules().watched() || properties.envoy().configured()) {
            return new SnapshotRuleBook(clock, properties.region().name(), properties.region().defaultShare());
        }
        String file = properties.rules().file();
        return new StaticRuleBook(file == null || file.isBlank() ? List.of() : RulesFile.read(Path.of(file)));
    }

    /** Envoy's descriptor mappings: from the snapshot when rules-service is watched, else from the rules file. */
    @Bean
    DescriptorBook descriptorBook(CheckProperties properties) {
        DescriptorBook descriptors = new DescriptorBook();
        String file = properties.rules().file();
        if (!properties.rules().watched() && file != null && !file.isBlank()) {
            descriptors.apply(RulesFile.readDocument(Path.of(file)).descriptorDomains());
        }
        return descriptors;
    }

    /** The pod's rules and mappings from envoyproxy/ratelimit's files, when tollgate.envoy.config-dir names them; else nothing to do. */
    @Bean(initMethod = "start", destroyMethod = "close")
    EnvoyConfigDirectory envoyConfigDirectory(CheckProperties properties, RuleBook ruleBook, DescriptorBook descriptors, MeterRegistry registry) {
        CheckProperties.Envoy envoy = properties.envoy();
        return envoy.configured()
                ? EnvoyConfigDirectory.watching(Path.of(envoy.configDir()), envoy.reloadInterval(), (SnapshotRuleBook) ruleBook, descriptors, registry)
                : EnvoyConfigDirectory.none();
    }

    /**
     * Only when rules come from rules-service: watches its feed and keeps the last good snapshot. The feed
     * (and the token issuer, with client credentials) is on Spring Boot's RestClient builder, a prototype of
     * which each gets its own, so each poll and token request is an http.client.requests observation.
     */
    @Bean(initMethod = "start", destroyMethod = "close")
    @Conditional(RulesServiceConfigured.class)
    RulesWatcher rulesWatcher(CheckProperties properties, RuleBook ruleBook, DescriptorBook descriptors, JsonMapper json,
                              MeterRegistry registry, ObjectProvider<RestClient.Builder> http, SslBundles sslBundles, Clock clock) {
        CheckProperties.Rules rules = properties.rules();
        RulesFeed feed = RulesFeed.of(http.getObject(), new RulesFeed.Settings(URI.create(rules.serviceUrl()),
                watchToken(rules, http, sslBundles, registry, clock), rules.connectTimeout(), rules.pollTimeout(), sslBundle(sslBundles, rules.sslBundle()),
                rules.maxSnapshotSize().toBytes()));
        RulesWatcher.WatchSettings watch = new RulesWatcher.WatchSettings(Path.of(rules.snapshotFile()), rules.retry().first(), rules.retry().max(),
                rules.canary());
        return new RulesWatcher(feed, watch, (SnapshotRuleBook) ruleBook, descriptors, json, registry);
    }

    /** The token from the properties or its file, or by client credentials from the issuer when those are set. */
    private static WatchToken watchToken(CheckProperties.Rules rules, ObjectProvider<RestClient.Builder> http, SslBundles sslBundles,
                                         MeterRegistry registry, Clock clock) {
        CheckProperties.ClientCredentials client = rules.clientCredentials();
        if (!client.configured()) {
            return rules.watchToken();
        }
        ClientCredentialsToken.Secret secret = StringUtils.hasText(client.clientSecretFile())
                ? () -> Files.readString(Path.of(client.clientSecretFile()), StandardCharsets.UTF_8).strip()
                : client.clientSecret()::strip;
        ClientAuthenticationMethod authentication = client.authentication() == CheckProperties.ClientCredentials.Authentication.CLIENT_SECRET_POST
                ? ClientAuthenticationMethod.CLIENT_SECRET_POST : ClientAuthenticationMethod.CLIENT_SECRET_BASIC;
        return ClientCredentialsToken.of(new ClientCredentialsToken.Settings(client.tokenUri(), client.clientId(), secret, client.scope(),
                client.audience(), authentication, client.clockSkew(), client.timeout(), sslBundle(sslBundles, client.sslBundle())),
                http.getObject(), clock, registry);
    }

    private static SslBundle sslBundle(SslBundles bundles, String name) {
        return StringUtils.hasText(name) ? bundles.getBundle(name) : null;
    }

    /** The gateways' service tokens for the HTTP and gRPC check ports; none: open ports. */
    @Bean
    ServiceTokens serviceTokens(CheckProperties properties) {
        return ServiceTokens.of(properties.access().tokens());
    }

    /** The readers' tokens for explain; none: explain is off. */
    @Bean
    ReaderTokens readerTokens(CheckProperties properties) {
        return ReaderTokens.of(properties.access().readerTokens());
    }

    @Bean
    LimiterMetrics limiterMetrics(MeterRegistry registry, CheckProperties properties) {
        return new LimiterMetrics(registry, properties.metrics().nearLimitRatio());
    }

    @Bean(destroyMethod = "close")
    PodRegistry podRegistry(RedisCounterStore store, CheckProperties properties, MeterRegistry registry) {
        CheckProperties.Pods pods = properties.pods();
        String id = pods.id() == null || pods.id().isBlank() ? hostName() : pods.id();
        PodRegistry live = new PodRegistry(store, properties.region().name(), id, pods.heartbeat(), pods.ttl(), pods.min());
        Gauge.builder(LimiterMetrics.LIVE_PODS, live, PodRegistry::getAsInt)
                .description("The region's live pods as this pod counts them (heartbeats): what fallback buckets and leases divide by")
                .register(registry);
        return live;
    }

    /** The engine's settings: the pod's, and its warm-up's engine's, which must run the same code paths. */
    @Bean
    LimiterSettings limiterSettings(CheckProperties properties, RedisCounterStore store) {
        return new LimiterSettings(properties.check().maxEntries(), properties.breaker().settings(),
                properties.optimizations().settings(), properties.check().deadlineOr(store.commandTimeout()),
                properties.countAfter().settings());
    }

    @Bean
    Limiter limiter(RuleBook ruleBook, RedisCounterStore store, LimiterSettings settings, LimiterMetrics metrics,
                    PodRegistry pods, UsageRecorder usage, Clock clock, MeterRegistry registry) {
        Limiter limiter = Limiter.builder(ruleBook, store)
                .settings(settings)
                .metrics(metrics)
                .clock(clock)
                .livePods(pods)
                .podId(pods.podId())
                .usage(usage)
                .build();
        Gauge.builder(LimiterMetrics.HOT_KEY_SHARE, limiter.hotKeys(), HotKeys::hottestKeyShare)
                .description("Share of this pod's store calls taken by its hottest key in the last 10-20 s (GET /v1/hot-keys names it)")
                .register(registry);
        Gauge.builder(LimiterMetrics.HOT_SLOT_SHARE, limiter.hotKeys(), HotKeys::hottestSlotShare)
                .description("Share of this pod's store calls taken by its hottest Redis Cluster slot in the last 10-20 s")
                .register(registry);
        return limiter;
    }

    /** The pod's top hot keys, published next to its heartbeat for rules-service's fleet-wide GET /v1/hot-keys. */
    @Bean(destroyMethod = "close")
    HotKeysPublisher hotKeysPublisher(RedisCounterStore store, Limiter limiter, PodRegistry pods, CheckProperties properties) {
        return new HotKeysPublisher(store, limiter.hotKeys(), properties.region().name(), pods.podId(), HotKeysPublisher.INTERVAL);
    }

    /**
     * Admitted requests per limit and key, flushed once a second to the region's Redis for the budget
     * rebalancer; on a client and connection of its own (the same spring.data.redis.* settings), so a flush
     * never queues ahead of a check's script and has its own, longer timeout.
     */
    @Bean(destroyMethod = "close")
    UsageRecorder usageRecorder(LettuceConnectionFactory redis, MeterRegistry registry, Clock clock) {
        LettuceConnectionFactory own = ClusterClients.copyOf(redis);
        RedisUsageStore store = RedisUsageStore.start(ClusterClients.of(own), ClusterClients.nodes(own), UsageSettings.DEFAULTS.flushTimeout(),
                own::destroy);
        return UsageRecorder.start(store, UsageSettings.DEFAULTS, registry, clock);
    }

    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName() + "-" + ProcessHandle.current().pid();
        } catch (java.net.UnknownHostException e) {
            return "pod-" + java.util.UUID.randomUUID();
        }
    }

    /** True when {@code tollgate.rules.service-url} names a rules-service (an empty value means the static file). */
    static final class RulesServiceConfigured implements Condition {

        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return StringUtils.hasText(context.getEnvironment().getProperty("tollgate.rules.service-url"));
        }
    }
}
