package dev.tollgate.check.config;

import dev.tollgate.limiter.LimiterSettings;
import dev.tollgate.limiter.breaker.BreakerSettings;
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
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.validation.beanvalidation.SpringValidatorAdapter;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** tollgate.* as Spring Boot binds and validates it at start-up: the defaults, and the values it refuses by name. */
class CheckPropertiesTest {

    private static final ValidatorFactory VALIDATION = Validation.buildDefaultValidatorFactory();

    @AfterAll
    static void close() {
        VALIDATION.close();
    }

    @Test
    void defaultsTheCommandTimeoutToTheDesignsFiveMillisecondsAndRefusesANonPositiveOne() {
        assertThat(bind(Map.of()).redis().settings().commandTimeout()).isEqualTo(Duration.ofMillis(5));
        assertThatThrownBy(() -> new CheckProperties.Redis(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tollgate.redis.command-timeout");
    }

    @Test
    void bindsTheDesignsDefaultsWhenNothingIsSet() {
        CheckProperties properties = bind(Map.of());

        assertThat(properties.pods().min()).isEqualTo(1);
        assertThat(properties.pods().heartbeat()).isEqualTo(Duration.ofSeconds(1));
        assertThat(properties.check().maxEntries()).isEqualTo(64);
        assertThat(properties.breaker().settings().failuresToOpen()).isEqualTo(3);
        assertThat(properties.breaker().settings().openFor()).isEqualTo(Duration.ofSeconds(1));
        assertThat(properties.optimizations().settings()).isEqualTo(dev.tollgate.limiter.Optimizations.ALL);
        assertThat(properties.breaker().settings()).isEqualTo(BreakerSettings.DEFAULTS);
        assertThat(properties.check().maxEntries()).isEqualTo(LimiterSettings.DEFAULTS.maxEntries());
        assertThat(properties.region().name()).isEqualTo("default");
        assertThat(properties.region().defaultShare()).isEqualTo(1.0);
        assertThat(properties.metrics().nearLimitRatio()).isEqualTo(0.8);
        assertThat(properties.rules().snapshotFile()).isEqualTo("tollgate-rules-snapshot.json");
        assertThat(properties.grpc().port()).isEqualTo(8090);
        assertThat(properties.grpc().enabled()).isTrue();
        assertThat(properties.grpc().reflection()).isFalse();
        assertThat(properties.grpc().maxMessageSize().toKilobytes()).isEqualTo(64);
        assertThat(properties.access().tokens()).isEmpty();
    }

    @Test
    void waitsThirtySecondsForTheStoreBeforeServingInFallbackByDefault() {
        CheckProperties.Readiness readiness = bind(Map.of()).readiness();

        assertThat(readiness.storeGrace()).isEqualTo(Duration.ofSeconds(30));
        assertThat(readiness.fallbackAfterGrace()).isTrue();
        assertThat(bind(Map.of("tollgate.readiness.store-grace", "-1ms")).readiness().fallbackAfterGrace()).isFalse();
    }

    @Test
    void takesAPodFloorAndRefusesOneBelowOne() {
        assertThat(bind(Map.of("tollgate.pods.min", "50")).pods().min()).isEqualTo(50);
        assertRefused(Map.of("tollgate.pods.min", "0"), "tollgate.pods.min");
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', textBlock = """
            tollgate.region.default-share      | 1.5   | tollgate.region.default-share
            tollgate.region.default-share      | 0     | tollgate.region.default-share
            tollgate.region.name               | ' '   | tollgate.region.name
            tollgate.metrics.near-limit-ratio  | 0     | tollgate.metrics.near-limit-ratio
            tollgate.optimizations.lease-want  | 0     | tollgate.optimizations.lease-want
            tollgate.optimizations.lease-want  | 10001 | tollgate.optimizations.lease-want
            tollgate.optimizations.lease-ttl   | -1ms  | tollgate.optimizations.lease-ttl
            tollgate.breaker.failures-to-open  | 0     | tollgate.breaker.failures-to-open
            tollgate.breaker.open-for          | 0s    | tollgate.breaker.open-for
            tollgate.check.deadline            | 0s    | tollgate.check.deadline
            tollgate.check.deadline            | 2m    | tollgate.check.deadline
            tollgate.check.max-entries         | 0     | tollgate.check.max-entries
            tollgate.grpc.port                 | 65536 | tollgate.grpc.port
            tollgate.grpc.max-message-size     | 10B   | tollgate.grpc.max-message-size
            """)
    void refusesAValueOutsideItsLimitsNamingTheProperty(String property, String value, String named) {
        assertRefused(Map.of(property, value), named);
    }

    @Test
    void warmsBothProtocolsByDefaultOrTheOnesNamed() {
        assertThat(bind(Map.of()).warmUp().protocols())
                .containsExactlyInAnyOrder(CheckProperties.WarmUp.Protocol.HTTP, CheckProperties.WarmUp.Protocol.GRPC);
        // the chart's value, one string through the environment
        assertThat(bind(Map.of("tollgate.warm-up.protocols", "grpc")).warmUp().protocols()).containsExactly(CheckProperties.WarmUp.Protocol.GRPC);
        assertThat(bind(Map.of("tollgate.warm-up.protocols", "HTTP")).warmUp().protocols()).containsExactly(CheckProperties.WarmUp.Protocol.HTTP);
        assertRefused(Map.of("tollgate.warm-up.protocols", "http,smtp"), "tollgate.warm-up.protocols");
        assertRefused(Map.of("tollgate.warm-up.protocols", ""), "tollgate.warm-up.protocols");
    }

    @Test
    void refusesSettingsThatContradictEachOther() {
        assertRefused(Map.of("tollgate.pods.heartbeat", "3s", "tollgate.pods.ttl", "3s"), "tollgate.pods.ttl must be longer than tollgate.pods.heartbeat");
        String oneSource = "set at most one of tollgate.rules.token, tollgate.rules.token-file and tollgate.rules.client-credentials.*";
        assertRefused(Map.of("tollgate.rules.token", "t", "tollgate.rules.token-file", "/run/token"), oneSource);
        assertRefused(Map.of("tollgate.rules.token-file", "/run/token", "tollgate.rules.client-credentials.token-uri", "https://idp/token",
                "tollgate.rules.client-credentials.client-id", "pods", "tollgate.rules.client-credentials.client-secret-file", "/run/secret"), oneSource);
        assertRefused(Map.of("tollgate.rules.retry.first", "5s", "tollgate.rules.retry.max", "1s"),
                "tollgate.rules.retry.max must not be shorter than tollgate.rules.retry.first");
        assertRefused(Map.of("tollgate.rules.max-snapshot-size", "100B"), "tollgate.rules.max-snapshot-size must be between 1KB and 2GB");
    }

    @Test
    void bindsClientCredentialsFromTheEnvironmentVariablesTheChartSets() {
        Map<String, Object> env = Map.of("TOLLGATE_RULES_CLIENTCREDENTIALS_TOKENURI", "https://idp/token",
                "TOLLGATE_RULES_CLIENTCREDENTIALS_CLIENTID", "pods", "TOLLGATE_RULES_CLIENTCREDENTIALS_CLIENTSECRETFILE", "/run/secret",
                "TOLLGATE_RULES_CLIENTCREDENTIALS_CLOCKSKEW", "90s", "TOLLGATE_RULES_CLIENTCREDENTIALS_AUTHENTICATION", "client-secret-post");
        Binder binder = new Binder(ConfigurationPropertySources.from(new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, env)));
        CheckProperties.ClientCredentials credentials = binder.bindOrCreate("tollgate", Bindable.of(CheckProperties.class),
                new ValidationBindHandler(new SpringValidatorAdapter(VALIDATION.getValidator()))).rules().clientCredentials();
        assertThat(credentials.tokenUri()).hasToString("https://idp/token");
        assertThat(credentials.clientId()).isEqualTo("pods");
        assertThat(credentials.clientSecretFile()).isEqualTo("/run/secret");
        assertThat(credentials.clockSkew()).isEqualTo(Duration.ofSeconds(90));
        assertThat(credentials.authentication()).isEqualTo(CheckProperties.ClientCredentials.Authentication.CLIENT_SECRET_POST);
    }

    @Test
    void refusesClientCredentialsWithoutTheirEndpointClientOrExactlyOneSecret() {
        String incomplete = "tollgate.rules.client-credentials needs token-uri, client-id and one of client-secret or client-secret-file";
        assertRefused(Map.of("tollgate.rules.client-credentials.client-id", "pods",
                "tollgate.rules.client-credentials.client-secret-file", "/run/secret"), incomplete);
        assertRefused(Map.of("tollgate.rules.client-credentials.token-uri", "https://idp/token",
                "tollgate.rules.client-credentials.client-secret", "s"), incomplete);
        assertRefused(Map.of("tollgate.rules.client-credentials.token-uri", "https://idp/token", "tollgate.rules.client-credentials.client-id", "pods"),
                incomplete);
        assertRefused(Map.of("tollgate.rules.client-credentials.token-uri", "https://idp/token", "tollgate.rules.client-credentials.client-id", "pods",
                "tollgate.rules.client-credentials.client-secret", "s", "tollgate.rules.client-credentials.client-secret-file", "/run/secret"), incomplete);
    }

    @Test
    void bindsClientCredentialsWithTheirDefaultsAndNeverShowsTheSecret() {
        CheckProperties.Rules rules = bind(Map.of("tollgate.rules.client-credentials.token-uri", "https://idp/token",
                "tollgate.rules.client-credentials.client-id", "pods", "tollgate.rules.client-credentials.client-secret", "s3cr3t",
                "tollgate.rules.client-credentials.authentication", "client_secret_post")).rules();
        CheckProperties.ClientCredentials credentials = rules.clientCredentials();
        assertThat(credentials.configured()).isTrue();
        assertThat(credentials.scope()).isEqualTo("ratelimit:watch");
        assertThat(credentials.clockSkew()).isEqualTo(Duration.ofSeconds(60));
        assertThat(credentials.authentication()).isEqualTo(CheckProperties.ClientCredentials.Authentication.CLIENT_SECRET_POST);
        assertThat(rules.toString()).doesNotContain("s3cr3t");
        assertThat(bind(Map.of()).rules().clientCredentials().configured()).isFalse();
        assertThat(bind(Map.of()).rules().clientCredentials().authentication())
                .isEqualTo(CheckProperties.ClientCredentials.Authentication.CLIENT_SECRET_BASIC);
    }

    private static CheckProperties bind(Map<String, String> values) {
        Binder binder = new Binder(new MapConfigurationPropertySource(values));
        return binder.bindOrCreate("tollgate", Bindable.of(CheckProperties.class),
                new ValidationBindHandler(new SpringValidatorAdapter(VALIDATION.getValidator())));
    }

    private static void assertRefused(Map<String, String> values, String named) {
        assertThatThrownBy(() -> bind(values))
                .isInstanceOf(BindException.class)
                .satisfies(e -> assertThat(e.getMessage() + " " + e.getCause()).contains(named));
    }
}
