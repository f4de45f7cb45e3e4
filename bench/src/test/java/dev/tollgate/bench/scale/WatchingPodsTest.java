package dev.tollgate.bench.scale;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WatchingPodsTest {

    @Test
    void readsTheRevisionFromAWeakOrStrongEtag() {
        assertThat(WatchingPods.revisionOf("W/\"42\"")).hasValue(42);
        assertThat(WatchingPods.revisionOf("\"7\"")).hasValue(7);
        assertThat(WatchingPods.revisionOf("W/\"abc\"")).isEmpty();
    }

    @Test
    void readsTheRevisionFromAPlainOrGzippedBodyOfEitherShape() throws IOException {
        String snapshot = "{\"revision\":12,\"rules\":[],\"region_budgets\":[]}";
        String delta = "{\"revision\": 13, \"since\": 12, \"upserts\": {}}";
        assertThat(WatchingPods.revisionInBody(snapshot.getBytes(StandardCharsets.UTF_8), false)).isEqualTo(12);
        assertThat(WatchingPods.revisionInBody(gzip(delta), true)).isEqualTo(13);
    }

    @Test
    void anAnswerWithoutARevisionIsAnError() {
        assertThatThrownBy(() -> WatchingPods.revisionInBody("{\"rules\":[]}".getBytes(StandardCharsets.UTF_8), false))
                .isInstanceOf(IOException.class);
    }

    @Test
    void aPodKnowsWhenItFirstHeldARevisionOrALaterOne() {
        WatchingPods.Pod pod = new WatchingPods.Pod(0, "us-east");
        pod.received(5, 1_000);
        pod.received(8, 2_000);
        assertThat(pod.firstHolding(5)).hasValue(1_000);
        assertThat(pod.firstHolding(6)).hasValue(2_000);
        assertThat(pod.firstHolding(9)).isEmpty();
        assertThat(pod.revision()).isEqualTo(8);
    }

    private static byte[] gzip(String text) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream zip = new GZIPOutputStream(out)) {
            zip.write(text.getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
    }
}
