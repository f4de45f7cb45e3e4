package dev.tollgate.rules.usage;

import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.NotBlank;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

import java.time.Duration;

/**
 * The region's Redis Cluster itself is Spring Boot's {@code spring.data.redis.*}; without cluster nodes
 * the usage endpoint answers 503. Validated at start-up: a bad value stops the service with the property's name.
 *
 * @param region       the region this instance reads counters in; its share of each budgeted key applies
 * @param defaultShare the region's share of a key that has no budget yet, as its check-service pods are told
 *                     ({@code tollgate.region.default-share}), so support sees the limit the pods enforce
 * @param readTimeout  how long one read of the store may take, connecting included: a usage read is for a
 *                     person, not on the request path, yet a dead cluster must answer 503 quickly
 */
@Validated
@ConfigurationProperties("tollgate.usage")
public record UsageProperties(@DefaultValue("local") @NotBlank String region,
                              @DefaultValue("1.0") @DecimalMin(value = "0", inclusive = false) @DecimalMax("1") double defaultShare,
                              @DefaultValue("2s") @DurationMin(nanos = 1) Duration readTimeout) {
}
