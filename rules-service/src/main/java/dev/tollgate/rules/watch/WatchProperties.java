package dev.tollgate.rules.watch;

import jakarta.validation.constraints.AssertTrue;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

import java.time.Duration;

/**
 * Validated at start-up: a bad value stops the service with the property's name.
 *
 * @param timeout how long a watch waits for a change before answering 304; below the 30 s idle
 *                timeout of common load balancers, so a quiet feed never looks like a dead connection
 * @param poll    how often the store revision is read; a change made through this instance wakes
 *                watchers at once, one made elsewhere within this
 */
@Validated
@ConfigurationProperties("tollgate.watch")
public record WatchProperties(@DefaultValue("25s") @DurationMin(nanos = 1) @DurationMax(minutes = 5) Duration timeout,
                              @DefaultValue("200ms") @DurationMin(nanos = 1) Duration poll) {

    /** A poll slower than the watch timeout would let a watch answer 304 on a change it never looked for. */
    @AssertTrue(message = "tollgate.watch.poll must be at most tollgate.watch.timeout")
    public boolean isPollWithinTimeout() {
        return poll == null || timeout == null || poll.compareTo(timeout) <= 0;
    }
}
