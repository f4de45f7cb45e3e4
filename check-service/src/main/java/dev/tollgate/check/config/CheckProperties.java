package dev.tollgate.check.config;

import dev.tollgate.check.rules.WatchToken;
import dev.tollgate.limiter.breaker.BreakerSettings;
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
                              Optimizations optimizations, Pods pods) {

    public CheckProperties {
        optimizations = optimizations == null ? new Optimizations(null, null, null, 0, null) : optimizations;
        pods = pods == null ? new Pods(null, null, null) : pods;
        region = region == null ? new Region(null, 1.0) : region;
        breaker = breaker == null ? new Breaker(0, null) : breaker;
        redis = redis == null ? new Redis(null, null, null, null, null) : redis;
        check = check == null ? new Check(64) : check;
        rules = rules == null ? new Rules(null, null, null, null, null) : rules;
    }

    /**
     * @param seeds          cluster nodes, {@code redis://host:port}
     * @param commandTimeout a script slower than this counts as a store timeout (design: 5 ms)
     */
    public record Redis(List<String> seeds, String username, String password, Duration commandTimeout, Duration topologyRefresh) {
    }

    /** @param maxEntries entries one check may carry */
    public record Check(int maxEntries) {
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
     */
    public record Pods(String id, Duration heartbeat, Duration ttl) {

        public Pods {
            heartbeat = heartbeat == null ? Duration.ofSeconds(1) : heartbeat;
            ttl = ttl == null ? Duration.ofSeconds(3) : ttl;
            if (ttl.compareTo(heartbeat) <= 0) {
                throw new IllegalArgumentException("tollgate.pods.ttl (" + ttl + ") must be longer than tollgate.pods.heartbeat (" + heartbeat + ")");
            }
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
}
