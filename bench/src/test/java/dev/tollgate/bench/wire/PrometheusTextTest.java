package dev.tollgate.bench.wire;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PrometheusTextTest {

    @Test
    void readsSamplesWithTheirLabelsAndSumsThem() {
        PrometheusText text = PrometheusText.parse("""
                # HELP jvm_memory_used_bytes The amount of used memory
                # TYPE jvm_memory_used_bytes gauge
                jvm_memory_used_bytes{application="check-service",area="heap",id="G1 Eden Space"} 1.2E7
                jvm_memory_used_bytes{application="check-service",area="heap",id="G1 Old Gen"} 3.0E7
                jvm_memory_used_bytes{application="check-service",area="nonheap",id="Metaspace"} 8.0E7
                tollgate_store_calls_seconds_count{outcome="ok",shard="127.0.0.1:7000"} 120.0
                tollgate_store_calls_seconds_count{outcome="ok",shard="127.0.0.1:7001"} 80.0
                tollgate_store_calls_seconds_count{outcome="timeout",shard="127.0.0.1:7001"} 3.0
                jvm_threads_live_threads 36.0
                """);

        assertThat(text.sum("jvm_memory_used_bytes", labels -> "heap".equals(labels.get("area")))).hasValue(4.2E7);
        assertThat(text.sum("jvm_threads_live_threads")).hasValue(36);
        assertThat(text.sum("process_files_open_files")).isEmpty();
        assertThat(text.sumBy("tollgate_store_calls_seconds_count", "outcome")).containsEntry("ok", 200.0).containsEntry("timeout", 3.0);
    }
}
