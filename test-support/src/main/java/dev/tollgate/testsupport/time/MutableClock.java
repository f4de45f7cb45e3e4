package dev.tollgate.testsupport.time;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A UTC clock that stands still until the test advances it. Volatile, because the code under test may read it
 * from its own thread (a scheduler, an event loop) while the test thread moves it.
 */
public final class MutableClock extends Clock {

    private volatile Instant now;

    public MutableClock(Instant start) {
        this.now = start;
    }

    public void advance(Duration by) {
        now = now.plus(by);
    }

    /** The current instant in nanoseconds since the epoch, for code that is given a {@code LongSupplier} of time. */
    public long nanos() {
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    /** Stays UTC whatever zone is asked for: the code under test reads instants, never local dates. */
    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
