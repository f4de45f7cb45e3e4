package dev.tollgate.check.config;

import dev.tollgate.check.rules.WatchToken;
import dev.tollgate.limiter.breaker.BreakerSettings;
import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.limiter.store.RedisCounterStore;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Everything check-service reads from configuration, under {@code tollgate.*}. Bad values stop the
 * pod at start-up with a message naming the property.
 */
@ConfigurationProperties("tollgate")
public record CheckProperties(Redis redis, Check check, Rules rules, Breaker breaker, Region region,
                              Optimizations optimizations, Pods pods, Readiness readiness, Metrics metrics) {

    public CheckProperties {
        optimizations = optimizations == null ? new Optimizations(null, null, null, 0, null) : optimizations;
        pods = pods == null ? new Pods(null, null, null, null) : pods;
        readiness = readiness == null ? new Readiness(null) : readiness;
        region = region == null ? new Region(null, 1.0) : region;
        breaker = breaker == null ? new Breaker(0, null) : breaker;
        redis = redis == null ? new Redis(null, null, null, null, null, null) : redis;
        check = check == null ? new Check(64, null) : check;
        rules = rules == null ? new Rules(null, null, null, null, null) : rules;
        metrics = metrics == null ? new Metrics(null) : metrics;
    }

    /**
     * @param seeds          cluster nodes, {@code redis://host:port}
     * @param commandTimeout a script slower than this counts as a store timeout (design: 5 ms)
     * @param connectTimeout how long opening a connection may take, TCP and handshake (default 1 s);
     *                       never the command timeout
     */
    public record Redis(List<String> seeds, String username, String password, Duration commandTimeout, Duration topologyRefresh,
                        Duration connectTimeout) {

        /** Neither the password nor a secret in a seed URI: this record may end up in a log or a failure message. */
        @Override
        public String toString() {
            return "Redis[seeds=" + (seeds == null ? null : seeds.stream().map(RedisCounterStore::redact).toList())
                    + ", username=" + username + ", password=" + (password == null ? "none" : "****")
                    + ", commandTimeout=" + commandTimeout + ", topologyRefresh=" + topologyRefresh
                    + ", connectTimeout=" + connectTimeout + "]";
        }
    }

    /**
     * @param maxEntries entries one check may carry
     * @param deadline   the longest a check may take whatever the store does; unanswered key groups then get
     *                   their rule's fail mode (default: five times the command timeout)
     */
    public record Check(int maxEntries, Duration deadline) {

        public Check {
            if (deadline != null && (deadline.isNegative() || deadline.isZero())) {
                throw new IllegalArgumentException("tollgate.check.deadline must be positive, was " + deadline);
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
    public record Breaker(int failuresToOpen, Duration openFor) {

        public BreakerSettings settings() {
            return new BreakerSettings(failuresToOpen == 0 ? BreakerSettings.DEFAULTS.failuresToOpen() : failuresToOpen,
                    openFor == null ? BreakerSettings.DEFAULTS.openFor() : openFor);
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
    public record Optimizations(Boolean localFirst, Boolean leases, Boolean denyCache, int leaseWant, Duration leaseTtl) {

        public dev.tollgate.limiter.Optimizations settings() {
            var all = dev.tollgate.limiter.Optimizations.ALL;
            return new dev.tollgate.limiter.Optimizations(
                    localFirst == null ? all.localFirst() : localFirst,
                    leases == null ? all.leases() : leases,
                    denyCache == null ? all.denyCache() : denyCache,
                    leaseWant == 0 ? all.leaseWant() : leaseWant,
                    leaseTtl == null ? all.leaseTtl() : leaseTtl);
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
     * @param nearLimitRatio the share of a rule's limit used above which an allowed entry counts as
     *                       {@code near_limit} in {@code tollgate_rule_hits_total} (Envoy's NEAR_LIMIT_RATIO, default 0.8)
     */
    public record Metrics(Double nearLimitRatio) {

        public Metrics {
            nearLimitRatio = nearLimitRatio == null ? LimiterMetrics.DEFAULT_NEAR_LIMIT_RATIO : nearLimitRatio;
            if (!(nearLimitRatio > 0 && nearLimitRatio <= 1)) {
                throw new IllegalArgumentException("tollgate.metrics.near-limit-ratio must be in (0, 1], was " + nearLimitRatio);
            }
        }
    }
}
