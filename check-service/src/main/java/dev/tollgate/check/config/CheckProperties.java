package dev.tollgate.check.config;

import dev.tollgate.check.rules.WatchToken;
import dev.tollgate.limiter.LimiterSettings;
import dev.tollgate.limiter.breaker.BreakerSettings;
import dev.tollgate.store.ClientSettings;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Everything check-service reads from configuration, under {@code tollgate.*}. Bad values stop the
 * pod at start-up with a message naming the property.
 */
@ConfigurationProperties("tollgate")
public record CheckProperties(Redis redis, Check check, Rules rules, Breaker breaker, Region region,
                              Optimizations optimizations, Pods pods, Readiness readiness, Grpc grpc, Access access) {

    public CheckProperties {
        access = access == null ? new Access(null) : access;
        grpc = grpc == null ? new Grpc(null, null, null, null, null) : grpc;
        optimizations = optimizations == null ? new Optimizations(null, null, null, null, null) : optimizations;
        pods = pods == null ? new Pods(null, null, null, null) : pods;
        readiness = readiness == null ? new Readiness(null) : readiness;
        region = region == null ? new Region(null, 1.0) : region;
        breaker = breaker == null ? new Breaker(null, null) : breaker;
        redis = redis == null ? new Redis(null) : redis;
        check = check == null ? new Check(null, null) : check;
        rules = rules == null ? new Rules(null, null, null, null, null) : rules;
    }

    /**
     * The store's own client options; where the cluster is, credentials, TLS and the connect and handshake
     * timeouts are Spring Boot's {@code spring.data.redis.*}.
     *
     * @param commandTimeout a script slower than this counts as a store timeout (design: 5 ms)
     */
    public record Redis(Duration commandTimeout) {

        public Redis {
            commandTimeout = commandTimeout == null ? Duration.ofMillis(5) : commandTimeout;
            if (commandTimeout.isNegative() || commandTimeout.isZero()) {
                throw new IllegalArgumentException("tollgate.redis.command-timeout must be positive, was " + commandTimeout);
            }
        }

        /** The periodic slot-map refresh is spring.data.redis.lettuce.cluster.refresh.period's, kept on the client. */
        public ClientSettings settings() {
            return new ClientSettings(commandTimeout, null);
        }
    }

    /**
     * @param maxEntries entries one check may carry
     * @param deadline   the longest a check may take whatever the store does; unanswered key groups then get
     *                   their rule's fail mode (default: five times the command timeout)
     */
    public record Check(Integer maxEntries, Duration deadline) {

        public Check {
            maxEntries = maxEntries == null ? LimiterSettings.DEFAULTS.maxEntries() : maxEntries;
            if (maxEntries < 1 || maxEntries > LimiterSettings.MAX_ENTRIES) {
                throw new IllegalArgumentException("tollgate.check.max-entries must be between 1 and " + LimiterSettings.MAX_ENTRIES
                        + ", was " + maxEntries);
            }
            if (deadline != null && (deadline.isNegative() || deadline.isZero() || deadline.compareTo(Duration.ofMinutes(1)) > 0)) {
                throw new IllegalArgumentException("tollgate.check.deadline must be positive and at most a minute, was " + deadline);
            }
        }

        /** The deadline in force: the one configured, else five command timeouts. */
        public Duration deadlineOr(Duration commandTimeout) {
            return deadline != null ? deadline : commandTimeout.multipliedBy(5);
        }
    }

    /**
     * @param failuresToOpen timeouts in a row that send a shard's checks to fallback (design: 3)
     * @param openFor        how long before one probe goes to the shard again (design: 1 s)
     */
    public record Breaker(Integer failuresToOpen, Duration openFor) {

        public Breaker {
            failuresToOpen = failuresToOpen == null ? BreakerSettings.DEFAULTS.failuresToOpen() : failuresToOpen;
            openFor = openFor == null ? BreakerSettings.DEFAULTS.openFor() : openFor;
            if (failuresToOpen < 1) {
                throw new IllegalArgumentException("tollgate.breaker.failures-to-open must be at least 1, was " + failuresToOpen);
            }
            requirePositive("tollgate.breaker.open-for", openFor);
        }

        public BreakerSettings settings() {
            return new BreakerSettings(failuresToOpen, openFor);
        }
    }

    /**
     * Where a pod's rules come from: rules-service's watch feed when {@code serviceUrl} is set, else a
     * static file.
     *
     * @param file         a static rules file (YAML): how a pod runs without rules-service, like Envoy's ratelimit
     * @param serviceUrl   rules-service's base URL
     * @param token        a bearer token with scope ratelimit:watch
     * @param tokenFile    a file holding that token, read again for every poll, so that a renewed token
     *                     (a refreshed Secret volume, a Vault agent) is used without a restart
     * @param snapshotFile where the last good snapshot is saved, so a restart survives a rules outage
     */
    public record Rules(String file, String serviceUrl, String token, String tokenFile, String snapshotFile) {

        public Rules {
            if (token != null && !token.isBlank() && tokenFile != null && !tokenFile.isBlank()) {
                throw new IllegalArgumentException("set tollgate.rules.token or tollgate.rules.token-file, not both");
            }
        }

        public boolean watched() {
            return serviceUrl != null && !serviceUrl.isBlank();
        }

        public WatchToken watchToken() {
            return tokenFile != null && !tokenFile.isBlank() ? WatchToken.file(Path.of(tokenFile)) : WatchToken.fixed(token);
        }
    }

    /**
     * The design's optimizations, each on unless switched off (for comparison, or for safety).
     *
     * @param leaseWant requests a pod asks to lease at once (design: 50)
     * @param leaseTtl  how long a pod may spend a lease (design: 1 s)
     */
    public record Optimizations(Boolean localFirst, Boolean leases, Boolean denyCache, Integer leaseWant, Duration leaseTtl) {

        public Optimizations {
            var all = dev.tollgate.limiter.Optimizations.ALL;
            localFirst = localFirst == null ? all.localFirst() : localFirst;
            leases = leases == null ? all.leases() : leases;
            denyCache = denyCache == null ? all.denyCache() : denyCache;
            leaseWant = leaseWant == null ? all.leaseWant() : leaseWant;
            leaseTtl = leaseTtl == null ? all.leaseTtl() : leaseTtl;
            if (leaseWant < 1 || leaseWant > dev.tollgate.limiter.Optimizations.MAX_LEASE_WANT) {
                throw new IllegalArgumentException("tollgate.optimizations.lease-want must be between 1 and "
                        + dev.tollgate.limiter.Optimizations.MAX_LEASE_WANT + ", was " + leaseWant);
            }
            requirePositive("tollgate.optimizations.lease-ttl", leaseTtl);
        }

        public dev.tollgate.limiter.Optimizations settings() {
            return new dev.tollgate.limiter.Optimizations(localFirst, leases, denyCache, leaseWant, leaseTtl);
        }
    }

    /**
     * The region's live pod count, kept by heartbeats in its Redis.
     *
     * @param id        this pod's id in the registry (default: the host name)
     * @param heartbeat how often the pod beats (default 1 s)
     * @param ttl       a pod silent this long is no longer counted (default 3 s)
     * @param min       the fewest pods the region runs, e.g. the HPA's minimum (default 1, the chart sets
     *                  its minReplicas): the count a pod divides fallback buckets and leases by before its
     *                  first heartbeat, and the least it ever uses
     */
    public record Pods(String id, Duration heartbeat, Duration ttl, Integer min) {

        public Pods {
            heartbeat = heartbeat == null ? Duration.ofSeconds(1) : heartbeat;
            ttl = ttl == null ? Duration.ofSeconds(3) : ttl;
            min = min == null ? 1 : min;
            if (min < 1) {
                throw new IllegalArgumentException("tollgate.pods.min must be at least 1 (the HPA's minReplicas), was " + min);
            }
            if (ttl.compareTo(heartbeat) <= 0) {
                throw new IllegalArgumentException("tollgate.pods.ttl (" + ttl + ") must be longer than tollgate.pods.heartbeat (" + heartbeat + ")");
            }
        }
    }

    /**
     * When a pod reports ready (the readiness group): once it enforces, i.e. it holds rules (when it
     * watches rules-service) and it has reached its counter store since it started.
     *
     * @param storeGrace how long a pod that has never reached its store stays not ready; after that it
     *                   becomes ready anyway and serves in fallback (fail modes), with
     *                   {@code tollgate_store_connected} at 0 and its alert firing. Default 30 s; {@code 0}
     *                   does not wait for the store at all; a negative value (e.g. {@code -1}) waits for it
     *                   forever
     */
    public record Readiness(Duration storeGrace) {

        public Readiness {
            storeGrace = storeGrace == null ? Duration.ofSeconds(30) : storeGrace;
        }

        /** Whether a pod that never reached its store becomes ready once the grace is over. */
        public boolean fallbackAfterGrace() {
            return !storeGrace.isNegative();
        }
    }

    /**
     * @param name         this pod's region, as region budgets name it (e.g. us-east)
     * @param defaultShare the region's share of a key that has no budget yet: its slice of the default
     *                     split, or 1.0 when there is one region
     */
    public record Region(String name, double defaultShare) {

        public Region {
            name = name == null || name.isBlank() ? "default" : name;
            if (!(defaultShare > 0 && defaultShare <= 1)) {
                throw new IllegalArgumentException("tollgate.region.default-share must be in (0, 1], was " + defaultShare);
            }
        }
    }

    /**
     * Envoy's rate limit service (RLS v3) on its own gRPC port.
     *
     * @param enabled        whether the port is opened (default true)
     * @param address        the address to listen on (default: every interface)
     * @param port           the port (default 8090; 0 picks a free one)
     * @param maxMessageSize the largest request accepted (default 64 KB, the HTTP check's body limit);
     *                       a larger one is refused with RESOURCE_EXHAUSTED before it is read whole
     * @param reflection     whether gRPC server reflection is served (default false: it lists every
     *                       service and message to anyone who can reach the port)
     */
    public record Grpc(Boolean enabled, String address, Integer port, DataSize maxMessageSize, Boolean reflection) {

        public Grpc {
            enabled = enabled == null || enabled;
            port = port == null ? 8090 : port;
            maxMessageSize = maxMessageSize == null ? DataSize.ofKilobytes(64) : maxMessageSize;
            reflection = reflection != null && reflection;
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("tollgate.grpc.port must be 0-65535, was " + port);
            }
            if (maxMessageSize.toBytes() < 1024 || maxMessageSize.toBytes() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("tollgate.grpc.max-message-size must be between 1KB and 2GB, was " + maxMessageSize);
            }
        }
    }

    /**
     * @param tokens the service tokens gateways present on the check ports (HTTP {@code Authorization:
     *               Bearer}, gRPC {@code authorization} metadata); several at once while one is rotated.
     *               None (the default): the ports are open to whoever the network lets reach them
     */
    public record Access(List<String> tokens) {

        public Access {
            tokens = tokens == null ? List.of() : List.copyOf(tokens);
        }

        /** Never the tokens themselves: this record may end up in a log or a failure message. */
        @Override
        public String toString() {
            return "Access[" + tokens.size() + " token(s)]";
        }
    }

    private static void requirePositive(String property, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(property + " must be positive, was " + value);
        }
    }
}
