package dev.tollgate.rules.config;

import dev.tollgate.rules.console.ExplainProperties;
import dev.tollgate.rules.usage.UsageProperties;
import dev.tollgate.rules.watch.WatchProperties;
import jakarta.validation.Validation;
import jakarta.validation.ValidatorFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.validation.ValidationBindHandler;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.beanvalidation.SpringValidatorAdapter;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** tollgate.watch.*, tollgate.usage.* and tollgate.console.explain.* as Spring Boot binds and validates them at start-up. */
class PropertiesTest {

    private static final ValidatorFactory VALIDATION = Validation.buildDefaultValidatorFactory();

    @AfterAll
    static void close() {
        VALIDATION.close();
    }

    @Test
    void bindsTheDefaultsWhenNothingIsSet() {
        WatchProperties watch = bind("tollgate.watch", WatchProperties.class, Map.of());
        UsageProperties usage = bind("tollgate.usage", UsageProperties.class, Map.of());

        assertThat(watch.timeout()).isEqualTo(Duration.ofSeconds(25));
        assertThat(watch.poll()).isEqualTo(Duration.ofMillis(200));
        assertThat(watch.keep()).isEqualTo(Duration.ofHours(1));
        assertThat(watch.maxAnswerSize()).isEqualTo(DataSize.ofMegabytes(128));
        assertThat(usage.region()).isEqualTo("local");
        assertThat(usage.defaultShare()).isEqualTo(1.0);
        assertThat(usage.readTimeout()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void takesWhatIsSet() {
        UsageProperties usage = bind("tollgate.usage", UsageProperties.class,
                Map.of("tollgate.usage.region", "eu-west", "tollgate.usage.default-share", "0.25", "tollgate.usage.read-timeout", "500ms"));

        assertThat(usage).isEqualTo(new UsageProperties("eu-west", 0.25, Duration.ofMillis(500)));
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({
            "tollgate.watch.timeout, 0s, tollgate.watch.timeout",
            "tollgate.watch.timeout, 6m, tollgate.watch.timeout",
            "tollgate.watch.poll, -1ms, tollgate.watch.poll",
            "tollgate.watch.poll, 30s, tollgate.watch.poll must be at most tollgate.watch.timeout",
            "tollgate.watch.keep, 30s, tollgate.watch.keep",
            "tollgate.watch.max-answer-size, 100B, tollgate.watch.max-answer-size must be between 1KB and 2047MB",
            "tollgate.watch.max-answer-size, 4GB, tollgate.watch.max-answer-size must be between 1KB and 2047MB",
    })
    void refusesAWatchTimingThatCannotWork(String property, String value, String named) {
        assertThatThrownBy(() -> bind("tollgate.watch", WatchProperties.class, Map.of(property, value)))
                .isInstanceOf(BindException.class)
                .satisfies(e -> assertThat(e.getMessage() + " " + e.getCause()).contains(named));
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({
            "tollgate.usage.default-share, 0, tollgate.usage.default-share",
            "tollgate.usage.default-share, 1.5, tollgate.usage.default-share",
            "tollgate.usage.read-timeout, 0s, tollgate.usage.read-timeout",
            "tollgate.usage.region, ' ', tollgate.usage.region",
    })
    void refusesAUsageSettingOutOfRange(String property, String value, String named) {
        assertThatThrownBy(() -> bind("tollgate.usage", UsageProperties.class, Map.of(property, value)))
                .isInstanceOf(BindException.class)
                .satisfies(e -> assertThat(e.getMessage() + " " + e.getCause()).contains(named));
    }

    @Test
    void theConsolesExplainIsOffByDefaultAndNeverPrintsItsToken() {
        ExplainProperties off = bind("tollgate.console.explain", ExplainProperties.class, Map.of());
        ExplainProperties on = bind("tollgate.console.explain", ExplainProperties.class, Map.of(
                "tollgate.console.explain.url", "http://tollgate-check-service:8080", "tollgate.console.explain.reader-token", "s3cret-reader-token"));

        assertThat(off.configured()).isFalse();
        assertThat(off.connectTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(off.readTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(on.configured()).isTrue();
        assertThat(on.toString()).doesNotContain("s3cret").contains("(set)");
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({
            "tollgate.console.explain.url, ftp://check:8080, tollgate.console.explain.url",
            "tollgate.console.explain.url, check-service:8080, tollgate.console.explain.url",
            "tollgate.console.explain.url, http://user:pw@check:8080, tollgate.console.explain.url",
            "tollgate.console.explain.url, http://check:8080/?token=x, tollgate.console.explain.url",
            "tollgate.console.explain.reader-token, 'two words', tollgate.console.explain.reader-token",
            "tollgate.console.explain.read-timeout, 0s, tollgate.console.explain.read-timeout",
            "tollgate.console.explain.read-timeout, 1m, tollgate.console.explain.read-timeout",
            "tollgate.console.explain.connect-timeout, 30s, tollgate.console.explain.connect-timeout",
    })
    void refusesAnExplainSettingThatCannotWork(String property, String value, String named) {
        Map<String, String> values = new java.util.HashMap<>(Map.of("tollgate.console.explain.url", "http://check:8080",
                "tollgate.console.explain.reader-token", "a-reader-token-0123"));
        values.put(property, value);
        assertThatThrownBy(() -> bind("tollgate.console.explain", ExplainProperties.class, values))
                .isInstanceOf(BindException.class)
                .satisfies(e -> assertThat(e.getMessage() + " " + e.getCause()).contains(named).doesNotContain("a-reader-token-0123"));
    }

    @Test
    void refusesAnExplainUrlWithoutAToken() {
        assertThatThrownBy(() -> bind("tollgate.console.explain", ExplainProperties.class, Map.of("tollgate.console.explain.url", "http://check:8080")))
                .isInstanceOf(BindException.class)
                .satisfies(e -> assertThat(e.getMessage() + " " + e.getCause()).contains("tollgate.console.explain.reader-token is required"));
    }

    private static <T> T bind(String prefix, Class<T> type, Map<String, String> values) {
        return new Binder(new MapConfigurationPropertySource(values)).bindOrCreate(prefix, Bindable.of(type),
                new ValidationBindHandler(new SpringValidatorAdapter(VALIDATION.getValidator())));
    }
}
