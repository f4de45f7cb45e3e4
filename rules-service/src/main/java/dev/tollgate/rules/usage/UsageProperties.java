package dev.tollgate.rules.usage;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * The region's Redis Cluster itself is Spring Boot's {@code spring.data.redis.*}; without cluster nodes
 * the usage endpoint answers 503.
 *
 * @param region       the region this instance reads counters in; its share of each budgeted key applies
 * @param defaultShare the region's share of a key that has no budget yet, as its check-service pods are told
 *                     ({@code tollgate.region.default-share}), so support sees the limit the pods enforce
 * @param readTimeout  how long one read of the store may take, connecting included: a usage read is for a
 *                     person, not on the request path, yet a dead cluster must answer 503 quickly
 */
@ConfigurationProperties("tollgate.usage")
public record UsageProperties(String region, Double defaultShare, Duration readTimeout) {

    public UsageProperties {
        region = region == null || region.isBlank() ? "local" : region;
        defaultShare = defaultShare == null ? 1.0 : defaultShare;
        if (!(defaultShare > 0 && defaultShare <= 1)) {
            throw new IllegalArgumentException("tollgate.usage.default-share must be in (0, 1], was " + defaultShare);
        }
        readTimeout = readTimeout == null ? Duration.ofSeconds(2) : readTimeout;
        if (readTimeout.isNegative() || readTimeout.isZero()) {
            throw new IllegalArgumentException("tollgate.usage.read-timeout must be positive, was " + readTimeout);
        }
    }
}
