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
public record CheckProperties(Redis redis, Check check, Rules rules, Breaker breaker) {

    public CheckProperties {
        breaker = breaker == null ? new Breaker(0, null) : breaker;
        redis = redis == null ? new Redis(null, null, null, null, null) : redis;
        check = check == null ? new Check(64) : check;
        rules = rules == null ? new Rules(null) : rules;
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

    /** @param file a static rules file (YAML): how a pod runs without rules-service, like Envoy's ratelimit */
    public record Rules(String file) {
    }
}
