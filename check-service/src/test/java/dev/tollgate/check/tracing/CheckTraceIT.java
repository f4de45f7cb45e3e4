package dev.tollgate.check.tracing;

import dev.tollgate.check.SharedClusterPod;
import dev.tollgate.check.WebTestClients;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One check, traced with Spring Boot's OpenTelemetry support into an in-memory exporter: the HTTP
 * request's span, under it the engine's ({@code tollgate.check}), under that the Redis command Lettuce
 * sent, all one trace.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureWebTestClient
class CheckTraceIT {

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        SharedClusterPod.register(registry, "src/test/resources/rules-test.yml");
        registry.add("management.tracing.export.enabled", () -> "true");
        registry.add("management.tracing.sampling.probability", () -> "1.0");
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class Exporter {

        @Bean
        InMemorySpanExporter spans() {
            return InMemorySpanExporter.create();
        }
    }

    @Autowired
    WebTestClient http;

    @Autowired
    InMemorySpanExporter spans;

    @Autowired
    SdkTracerProvider tracer;

    @Test
    void oneChecksTraceSpansTheHttpRequestTheEngineAndRedis() {
        String key = "acct_" + UUID.randomUUID();
        WebTestClients.patient(http.mutate(), Duration.ofSeconds(30)).build()
                .post().uri("/v1/ratelimit:check").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"growth-global\",\"key\":\"" + key + "\"}]}")
                .exchange().expectStatus().isOk();

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            tracer.forceFlush().join(5, TimeUnit.SECONDS);
            assertThat(serverSpan()).isNotNull();
        });
        SpanData request = serverSpan();
        List<SpanData> trace = spans.getFinishedSpanItems().stream().filter(s -> s.getTraceId().equals(request.getTraceId())).toList();
        SpanData engine = trace.stream().filter(s -> s.getName().equals("limiter check")).findFirst().orElseThrow(
                () -> new AssertionError("no engine span in " + names(trace)));
        List<SpanData> redis = trace.stream().filter(s -> s.getKind() == SpanKind.CLIENT).toList();

        assertThat(engine.getParentSpanId()).isEqualTo(request.getSpanId());
        assertThat(redis).as("Redis commands of the check in " + names(trace)).isNotEmpty()
                .allSatisfy(command -> assertThat(command.getParentSpanId()).isEqualTo(engine.getSpanId()));
        assertThat(redis).anySatisfy(command -> assertThat(command.getName().toLowerCase()).contains("eval"));
    }

    private SpanData serverSpan() {
        return spans.getFinishedSpanItems().stream()
                .filter(s -> s.getKind() == SpanKind.SERVER && s.getName().contains("/v1/ratelimit:check"))
                .findFirst().orElse(null);
    }

    private static List<String> names(List<SpanData> spans) {
        return spans.stream().map(s -> s.getKind() + " " + s.getName() + " " + s.getSpanId() + "<-" + s.getParentSpanId()).toList();
    }
}
