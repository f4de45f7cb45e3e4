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
    private final PodPicker picker = new PodPicker(known::get, Duration.ofSeconds(2), now::get);

    @Test
    void aFailedPodGoesLastForItsKeysUntilItsTimeIsUpThenTakesThemBack() {
        List<URI> order = picker.order("acct_1");
        URI first = order.get(0);

        picker.failed(first);
        assertThat(picker.order("acct_1")).containsExactly(order.get(1), order.get(2), first);

        now.addAndGet(Duration.ofSeconds(2).toNanos());
        assertThat(picker.order("acct_1")).isEqualTo(order);
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
        known.set(List.of(B));
        assertThat(picker.order("acct_3")).containsExactly(B);
        known.set(List.of());
        assertThat(picker.order("acct_3")).isEmpty();
    }

    @Test
    void aPodIsNamedByHostAndPortSoAPathDoesNotMoveItsKeys() {
        PodPicker withPaths = new PodPicker(() -> List.of(URI.create("http://10.0.0.1:8080/"), URI.create("http://10.0.0.2:8080/"),
                URI.create("http://10.0.0.3:8080/")), Duration.ofSeconds(2), now::get);
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
