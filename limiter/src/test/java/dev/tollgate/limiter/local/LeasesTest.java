package dev.tollgate.limiter.local;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class LeasesTest {

    private final AtomicLong nanos = new AtomicLong(0);
    private final AtomicLong stranded = new AtomicLong();
    private final Leases leases = new Leases(Duration.ofSeconds(1), 1_000, nanos::get, stranded::addAndGet);

    @Test
    void spendsAGrantOneRequestAtATime() {
        leases.keep("acct|growth,route", 3, 2, new long[] {150, 10}, new long[] {500, 900});
        Leases.Taken first = leases.take("acct|growth,route").orElseThrow();
        assertThat(first.left()).isEqualTo(2);
        assertThat(first.remaining()).containsExactly(150, 10);
        assertThat(leases.take("acct|growth,route").orElseThrow().left()).isEqualTo(1);
        assertThat(leases.take("acct|growth,route").orElseThrow().left()).isZero();
        assertThat(leases.take("acct|growth,route")).as("used up: ask the store").isEmpty();
        assertThat(stranded.get()).isZero();
    }

    @Test
    void aLeaseLastsOneSecondAndItsUnspentTokensAreCountedAsStranded() {
        leases.keep("k", 5, 2, new long[] {100}, new long[] {0});
        leases.take("k");
        nanos.addAndGet(Duration.ofMillis(999).toNanos());
        assertThat(leases.take("k")).isPresent();
        nanos.addAndGet(Duration.ofMillis(1).toNanos());
        assertThat(leases.take("k")).isEmpty();
        // 3 requests of cost 2 were never spent
        assertThat(stranded.get()).isEqualTo(6);
    }

    @Test
    void aGrantThatRacedAnotherJoinsItInsteadOfStrandingIt() {
        leases.keep("k", 4, 1, new long[] {100}, new long[] {0});
        leases.keep("k", 2, 1, new long[] {90}, new long[] {0});
        assertThat(stranded.get()).isZero();
        Leases.Taken taken = leases.take("k").orElseThrow();
        assertThat(taken.left()).isEqualTo(5);
        assertThat(taken.remaining()).containsExactly(90);
    }

    @Test
    void aGrantAfterTheOldLeaseExpiredStrandsTheOldRest() {
        leases.keep("k", 4, 1, new long[] {100}, new long[] {0});
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        leases.keep("k", 2, 1, new long[] {90}, new long[] {0});
        assertThat(stranded.get()).isEqualTo(4);
        assertThat(leases.take("k").orElseThrow().left()).isEqualTo(1);
    }

    @Test
    void aGrantOfOneLeavesNoLease() {
        leases.keep("k", 0, 1, new long[] {1}, new long[] {0});
        assertThat(leases.take("k")).isEmpty();
    }

    @Test
    void leasesOfDifferentSetsAreSeparate() {
        leases.keep("acct|growth", 2, 1, new long[] {10}, new long[] {0});
        assertThat(leases.take("acct|growth,route")).isEmpty();
        assertThat(leases.take("acct|growth")).isPresent();
    }
}
