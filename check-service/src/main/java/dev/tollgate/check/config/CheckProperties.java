package dev.tollgate.check.config;

import dev.tollgate.limiter.breaker.BreakerSettings;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.List;

/**
 * Everything check-service reads from configuration, under {@code tollgate.*}. Bad values stop the
 * pod at start-up with a message naming the property.
 */
@ConfigurationProperties("tollgate")
public record CheckProperties(Redis redis, Check check, Rules rules, Breaker breaker, Region region) {

    public CheckProperties {
        region = region == null ? new Region(null, 1.0) : region;
        breaker = breaker == null ? new Breaker(0, null) : breaker;
        redis = redis == null ? new Redis(null, null, null, null, null) : redis;
        check = check == null ? new Check(64) : check;
        rules = rules == null ? new Rules(null, null, null, null) : rules;
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
     * @param snapshotFile where the last good snapshot is saved, so a restart survives a rules outage
     */
    public record Rules(String file, String serviceUrl, String token, String snapshotFile) {

        public boolean watched() {
            return serviceUrl != null && !serviceUrl.isBlank();
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
