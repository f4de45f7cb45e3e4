package dev.tollgate.rules.usage;

import dev.tollgate.limiter.store.RedisStoreSettings;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.List;

/**
 * @param region the region this instance reads counters in; its share of each budgeted key applies
 * @param redis  the region's Redis Cluster; with no seeds the usage endpoint answers 503
 */
@ConfigurationProperties("tollgate.usage")
public record UsageProperties(String region, Redis redis) {

    public UsageProperties {
        region = region == null || region.isBlank() ? "local" : region;
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
