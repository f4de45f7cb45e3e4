package dev.tollgate.rules;

import dev.tollgate.testsupport.postgres.Postgres;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Configurations the service must refuse to start with, rather than run unprotected. */
class StartupRefusalIT {

    @Test
    void refusesAStaticTokenOutsideTheDevProfile() {
        assertThatThrownBy(() -> start("tollgate.security.dev-token=leaked-into-prod",
                "spring.security.oauth2.resourceserver.jwt.public-key-location=" + TestTokens.publicKeyLocation()))
                .hasStackTraceContaining("tollgate.security.dev-token is set but the 'dev' profile is not active");
    }

    // the dev profile alone enables no token: one everyone knows would open every deployment that set it
    @Test
    void refusesTheDevProfileWithoutATokenOfItsOwn() {
        assertThatThrownBy(() -> start("spring.profiles.active=dev", "tollgate.security.dev-token="))
                .hasStackTraceContaining("'dev' profile takes a static bearer token and has no default: set TOLLGATE_DEV_TOKEN");
    }

    @Test
    void refusesAShortDevTokenWhenListeningOnEveryInterface() {
        assertThatThrownBy(() -> start("spring.profiles.active=dev", "tollgate.security.dev-token=dev-token"))
                .hasStackTraceContaining("is 9 characters long and the service listens on every interface");
    }

    // keys alone would accept any token the identity provider issues, for any client
    @Test
    void refusesJwtsCheckedOnlyAgainstTheKeySet() {
        assertThatThrownBy(() -> start("spring.security.oauth2.resourceserver.jwt.jwk-set-uri=http://127.0.0.1:9/certs"))
                .hasStackTraceContaining("would not check whom they come from or are meant for")
                .hasStackTraceContaining("spring.security.oauth2.resourceserver.jwt.issuer-uri")
                .hasStackTraceContaining("spring.security.oauth2.resourceserver.jwt.audiences");
    }

    @Test
    void refusesJwtsFromAnIssuerWithoutAnAudience() {
        assertThatThrownBy(() -> start("spring.security.oauth2.resourceserver.jwt.issuer-uri=" + TestTokens.issuer()))
                .hasStackTraceContaining("Set spring.security.oauth2.resourceserver.jwt.audiences (SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_AUDIENCES)");
    }

    @Test
    void refusesToStartWithNoWayToCheckTokens() {
        assertThatThrownBy(() -> start()).hasStackTraceContaining("no way to check bearer tokens");
    }

    @Test
    void refusesADefaultShareOutsideZeroToOne() {
        assertThatThrownBy(() -> start("tollgate.usage.default-share=1.5",
                "spring.security.oauth2.resourceserver.jwt.public-key-location=" + TestTokens.publicKeyLocation(),
                "tollgate.security.issuer=" + TestTokens.issuer(),
                "spring.security.oauth2.resourceserver.jwt.audiences=" + TestTokens.AUDIENCE))
                .hasStackTraceContaining("tollgate.usage.default-share").hasStackTraceContaining("1.5");
    }

    private static void start(String... extra) {
        Postgres postgres = Postgres.shared();
        // command-line arguments: above application.yml, as an operator's settings would be
        List<String> arguments = new ArrayList<>(List.of(
                "--server.port=0",
                "--spring.datasource.url=" + postgres.newDatabase("rules_refused"),
                "--spring.datasource.username=" + postgres.username(),
                "--spring.datasource.password=" + postgres.password(),
                "--spring.data.redis.cluster.nodes=127.0.0.1:" + RedisCluster.reservePorts(1).get(0)));
        for (String property : extra) {
            arguments.add("--" + property);
        }
        new SpringApplicationBuilder(RulesServiceApplication.class).run(arguments.toArray(String[]::new)).close();
    }
}
