package dev.tollgate.rules.rule;

import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

import java.time.Duration;

/**
 * @param flushInterval the check pods' flush interval for count-after rules (their own
 *                      {@code tollgate.count-after.flush-interval}, the same property name): the rules API states each
 *                      count-after rule's overshoot bound for it, so set both from one value
 */
@Validated
@ConfigurationProperties("tollgate.count-after")
public record CountAfterProperties(@DefaultValue("100ms") @DurationMin(millis = 1) @DurationMax(seconds = 10) Duration flushInterval) {
}
