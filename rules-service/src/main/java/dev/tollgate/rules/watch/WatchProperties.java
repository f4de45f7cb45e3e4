package dev.tollgate.rules.watch;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * @param timeout how long a watch waits for a change before answering 304; below the 30 s idle
 *                timeout of common load balancers, so a quiet feed never looks like a dead connection
 * @param poll    how often the store revision is read; a change made through this instance wakes
 *                watchers at once, one made elsewhere within this
 */
@ConfigurationProperties("tollgate.watch")
public record WatchProperties(Duration timeout, Duration poll) {

    public WatchProperties {
        timeout = timeout == null ? Duration.ofSeconds(25) : timeout;
        poll = poll == null ? Duration.ofMillis(200) : poll;
        if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(Duration.ofMinutes(5)) > 0) {
            throw new IllegalArgumentException("tollgate.watch.timeout must be between 0 and 5m, was " + timeout);
        }
        if (poll.isNegative() || poll.isZero() || poll.compareTo(timeout) > 0) {
            throw new IllegalArgumentException("tollgate.watch.poll must be positive and at most tollgate.watch.timeout, was " + poll);
        }
    }
}
