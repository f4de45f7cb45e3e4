package dev.tollgate.rules.usage;

import dev.tollgate.limiter.store.RedisStoreSettings;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.List;

/**
 * @param region       the region this instance reads counters in; its share of each budgeted key applies
 * @param defaultShare the region's share of a key that has no budget yet, as its check-service pods are told
 *                     ({@code tollgate.region.default-share}), so support sees the limit the pods enforce
 * @param redis        the region's Redis Cluster; with no seeds the usage endpoint answers 503
 */
@ConfigurationProperties("tollgate.usage")
public record UsageProperties(String region, Double defaultShare, Redis redis) {

    public UsageProperties {
        region = region == null || region.isBlank() ? "local" : region;
        defaultShare = defaultShare == null ? 1.0 : defaultShare;
        if (!(defaultShare > 0 && defaultShare <= 1)) {
            throw new IllegalArgumentException("tollgate.usage.default-share must be in (0, 1], was " + defaultShare);
        }
        redis = redis == null ? new Redis(null, null, null, null, null) : redis;
    }

    /**
     * @param commandTimeout a usage read is for a person, not on the request path: far looser than the
     *                       check's 5 ms, yet short enough that a dead cluster answers 503 quickly
     */
    public record Redis(List<String> seeds, String username, String password, Duration commandTimeout, Duration topologyRefresh) {

        public Redis {
            seeds = seeds == null ? List.of() : seeds.stream().filter(s -> s != null && !s.isBlank()).toList();
            commandTimeout = commandTimeout == null ? Duration.ofMillis(250) : commandTimeout;
        }

        boolean configured() {
            return !seeds.isEmpty();
        }

        RedisStoreSettings settings() {
            return new RedisStoreSettings(seeds, username, password, commandTimeout, topologyRefresh);
        }

        @Override
        public String toString() {
            return "Redis[seeds=" + seeds + ", username=" + username + ", password=" + (password == null ? "none" : "****")
                    + ", commandTimeout=" + commandTimeout + "]";
        }
    }
}
