package dev.tollgate.rules.watch;

import jakarta.validation.constraints.AssertTrue;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

import java.time.Duration;

/**
 * Validated at start-up: a bad value stops the service with the property's name.
 *
 * @param timeout       how long a watch waits for a change before answering 304; below the 30 s idle
 *                      timeout of common load balancers, so a quiet feed never looks like a dead connection
 * @param poll          how often the store revision is read; a change made through this instance wakes
 *                      watchers at once, one made elsewhere within this
 * @param keep          how long the feed keeps what was deleted (its tombstones): a pod whose revision is
 *                      older than that is sent its region's whole snapshot instead of a delta
 * @param maxAnswerSize the largest answer built, as JSON before compression: a delta past it is replaced
 *                      by the region's snapshot, a snapshot past it answers 503 answer_too_large (the pod
 *                      keeps its rules); at most the pods' own cap, which refuses more anyway
 */
@Validated
@ConfigurationProperties("tollgate.watch")
public record WatchProperties(@DefaultValue("25s") @DurationMin(nanos = 1) @DurationMax(minutes = 5) Duration timeout,
                              @DefaultValue("200ms") @DurationMin(nanos = 1) Duration poll,
                              @DefaultValue("1h") @DurationMin(minutes = 1) Duration keep,
                              @DefaultValue("128MB") DataSize maxAnswerSize) {

    /** Past 2 GB a byte array cannot hold the answer; below 1 KB no snapshot fits. */
    private static final long MIN_ANSWER_BYTES = 1024;
    private static final long MAX_ANSWER_BYTES = Integer.MAX_VALUE - 8;

    /** A poll slower than the watch timeout would let a watch answer 304 on a change it never looked for. */
    @AssertTrue(message = "tollgate.watch.poll must be at most tollgate.watch.timeout")
    public boolean isPollWithinTimeout() {
        return poll == null || timeout == null || poll.compareTo(timeout) <= 0;
    }

    @AssertTrue(message = "tollgate.watch.max-answer-size must be between 1KB and 2047MB")
    public boolean isMaxAnswerSizeHoldable() {
        return maxAnswerSize == null || maxAnswerSize.toBytes() >= MIN_ANSWER_BYTES && maxAnswerSize.toBytes() <= MAX_ANSWER_BYTES;
    }

    /** How often tombstones older than {@link #keep} are pruned: a tenth of it, at most every 5 minutes. */
    Duration pruneEvery() {
        Duration tenth = keep.dividedBy(10);
        return tenth.compareTo(Duration.ofMinutes(5)) > 0 ? Duration.ofMinutes(5) : tenth;
    }
}
