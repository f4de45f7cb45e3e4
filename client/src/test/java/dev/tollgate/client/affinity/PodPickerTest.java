package dev.tollgate.client.affinity;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PodPickerTest {

    private static final URI A = URI.create("http://10.0.0.1:8080");
    private static final URI B = URI.create("http://10.0.0.2:8080");
    private static final URI C = URI.create("http://10.0.0.3:8080");

    private final AtomicLong now = new AtomicLong();
    private final AtomicReference<List<URI>> known = new AtomicReference<>(List.of(A, B, C));
    private final PodPicker picker = new PodPicker(known::get, Duration.ofSeconds(1), Duration.ofSeconds(5), now::get);

    @Test
    void aFailedPodGoesLastForItsKeysUntilItsTimeIsUp() {
        List<URI> order = picker.order("acct_1");
        URI first = order.get(0);

        picker.failed(first);
        assertThat(picker.order("acct_1")).containsExactly(order.get(1), order.get(2), first);
        assertThat(picker.down()).isEqualTo(1);

        now.addAndGet(Duration.ofMillis(999).toNanos());
        assertThat(picker.order("acct_1").get(0)).isEqualTo(order.get(1));
    }

    @Test
    void onceItsTimeIsUpOneCheckProbesTheDownPodAndTheOthersStillSkipIt() {
        List<URI> order = picker.order("acct_1");
        URI first = order.get(0);
        picker.failed(first);
        now.addAndGet(Duration.ofSeconds(1).toNanos());

        assertThat(picker.order("acct_1")).as("the probe").isEqualTo(order);
        assertThat(picker.order("acct_1").get(0)).as("while the probe is out").isEqualTo(order.get(1));
        assertThat(picker.down()).isEqualTo(1);

        picker.answered(first);
        assertThat(picker.order("acct_1")).isEqualTo(order);
        assertThat(picker.down()).isZero();
    }

    @Test
    void onlyAKeyThatRanksTheDownPodFirstProbesIt() {
        URI pod = picker.order("acct_1").get(0);
        String other = null;
        for (int i = 0; other == null; i++) {
            if (!picker.order("other_" + i).get(0).equals(pod)) {
                other = "other_" + i;
            }
        }
        picker.failed(pod);
        now.addAndGet(Duration.ofSeconds(1).toNanos());

        // a key whose first pod is up: the down pod stays last for it, and its probe is still to be taken
        assertThat(picker.order(other).get(2)).isEqualTo(pod);
        assertThat(picker.order("acct_1").get(0)).isEqualTo(pod);
    }

    @Test
    void eachFailedProbeDoublesTheTimeDownUpToTheCap() {
        URI pod = picker.order("acct_1").get(0);
        picker.failed(pod);
        long[] expectedMs = {1_000, 2_000, 4_000, 5_000, 5_000};
        for (long ms : expectedMs) {
            now.addAndGet(Duration.ofMillis(ms - 1).toNanos());
            assertThat(picker.order("acct_1").get(0)).as("%d ms: not yet", ms).isNotEqualTo(pod);
            now.addAndGet(Duration.ofMillis(1).toNanos());
            assertThat(picker.order("acct_1").get(0)).as("%d ms: probed", ms).isEqualTo(pod);
            picker.failed(pod);
        }
    }

    @Test
    void aFailureOfACheckSentBeforeThePodWasMarkedDoesNotLengthenItsMark() {
        URI pod = picker.order("acct_1").get(0);
        for (int i = 0; i < 10; i++) {
            // ten checks in flight to a pod that just died, all failing together
            picker.failed(pod);
        }
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        assertThat(picker.order("acct_1").get(0)).isEqualTo(pod);
    }

    @Test
    void aProbeThatNeverReportsIsGivenUpAndSentAgain() {
        URI pod = picker.order("acct_1").get(0);
        picker.failed(pod);
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        assertThat(picker.order("acct_1").get(0)).as("the probe, then cancelled unreported").isEqualTo(pod);
        now.addAndGet(Duration.ofMillis(999).toNanos());
        assertThat(picker.order("acct_1").get(0)).isNotEqualTo(pod);
        now.addAndGet(Duration.ofMillis(1).toNanos());
        assertThat(picker.order("acct_1").get(0)).as("another probe").isEqualTo(pod);
    }

    @Test
    void aCapShorterThanTheFirstIntervalIsRefused() {
        assertThatThrownBy(() -> new PodPicker(known::get, Duration.ofSeconds(2), Duration.ofSeconds(1), now::get))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("downForAtMost");
    }

    @Test
    void anAnswerBringsAPodBackAtOnce() {
        URI first = picker.order("acct_2").get(0);
        picker.failed(first);
        picker.answered(first);
        assertThat(picker.order("acct_2").get(0)).isEqualTo(first);
    }

    @Test
    void followsThePodsTheSourceKnowsNow() {
        assertThat(picker.order("acct_3")).hasSize(3);
        assertThat(picker.known()).isEqualTo(3);
        known.set(List.of(B));
        assertThat(picker.order("acct_3")).containsExactly(B);
        known.set(List.of());
        assertThat(picker.order("acct_3")).isEmpty();
        assertThat(picker.known()).isZero();
    }

    @Test
    void aPodIsNamedByHostAndPortSoAPathDoesNotMoveItsKeys() {
        PodPicker withPaths = new PodPicker(() -> List.of(URI.create("http://10.0.0.1:8080/"), URI.create("http://10.0.0.2:8080/"),
                URI.create("http://10.0.0.3:8080/")), Duration.ofSeconds(2), Duration.ofSeconds(2), now::get);
        for (int i = 0; i < 100; i++) {
            assertThat(withPaths.order("k" + i).get(0).getHost()).isEqualTo(picker.order("k" + i).get(0).getHost());
        }
    }

    @Test
    void aStaticListMustNameHttpAddresses() {
        assertThatThrownBy(() -> PodSource.of(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PodSource.of(List.of(URI.create("https://x:1")))).hasMessageContaining("http://host:port");
    }
}
