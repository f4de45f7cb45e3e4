package dev.tollgate.rules.watch;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

import java.time.Duration;

/**
 * @param timeout       how long a watch waits for a change before answering 304; below the 30 s idle
 *                      timeout of common load balancers, so a quiet feed never looks like a dead connection
 * @param poll          how often the store revision is read; a change made through this instance wakes
 *                      watchers at once, one made elsewhere within this
 * @param keep          how long the feed keeps what was deleted (its tombstones): a pod whose revision is
 *                      older than that is sent a whole snapshot instead of a delta
 * @param maxAnswerSize the largest answer built, as JSON before compression: a delta past it is replaced
 *                      by the region's snapshot, a snapshot past it answers 503 answer_too_large (the pod
 *                      keeps its rules); at most the pods' own cap, which refuses more anyway
 */
@ConfigurationProperties("tollgate.watch")
public record WatchProperties(Duration timeout, Duration poll, Duration keep, DataSize maxAnswerSize) {

    public WatchProperties {
        timeout = timeout == null ? Duration.ofSeconds(25) : timeout;
        poll = poll == null ? Duration.ofMillis(200) : poll;
        keep = keep == null ? Duration.ofHours(1) : keep;
        maxAnswerSize = maxAnswerSize == null ? DataSize.ofMegabytes(128) : maxAnswerSize;
        if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(Duration.ofMinutes(5)) > 0) {
            throw new IllegalArgumentException("tollgate.watch.timeout must be between 0 and 5m, was " + timeout);
        }
        if (poll.isNegative() || poll.isZero() || poll.compareTo(timeout) > 0) {
            throw new IllegalArgumentException("tollgate.watch.poll must be positive and at most tollgate.watch.timeout, was " + poll);
        }
        if (keep.compareTo(Duration.ofMinutes(1)) < 0) {
            throw new IllegalArgumentException("tollgate.watch.keep must be at least 1m (a pod between two polls must still get a delta), was " + keep);
        }
        if (maxAnswerSize.toBytes() < 1024 || maxAnswerSize.toBytes() > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("tollgate.watch.max-answer-size must be between 1KB and 2047MB, was " + maxAnswerSize);
        }
    }

    /** How often tombstones older than {@link #keep} are pruned: a tenth of it, at most every 5 minutes. */
    Duration pruneEvery() {
        Duration tenth = keep.dividedBy(10);
        return tenth.compareTo(Duration.ofMinutes(5)) > 0 ? Duration.ofMinutes(5) : tenth;
    }
}
