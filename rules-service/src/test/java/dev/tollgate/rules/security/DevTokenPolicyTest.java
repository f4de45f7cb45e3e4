package dev.tollgate.rules.security;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DevTokenPolicyTest {

    private static final String LONG_TOKEN = "a-token-of-my-own-1234";

    @Test
    void aStaticTokenNeedsTheDevProfile() {
        assertThatThrownBy(() -> DevTokenPolicy.check(token("secret-of-sixteen-plus"), new MockEnvironment()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'dev' profile is not active");
        assertThatCode(() -> DevTokenPolicy.check(token(" "), new MockEnvironment())).doesNotThrowAnyException();
        assertThatCode(() -> DevTokenPolicy.check(token(null), new MockEnvironment())).doesNotThrowAnyException();
    }

    @Test
    void theDevProfileHasNoDefaultTokenAndSaysWhatToSet() {
        assertThatThrownBy(() -> DevTokenPolicy.check(token(null), dev(null)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has no default")
                .hasMessageContaining("TOLLGATE_DEV_TOKEN")
                .hasMessageContaining("tollgate.security.dev-token");
        assertThatThrownBy(() -> DevTokenPolicy.check(token("  "), dev("127.0.0.1"))).hasMessageContaining("has no default");
    }

    @Test
    void aShortTokenIsForLoopbackOnly() {
        assertThatThrownBy(() -> DevTokenPolicy.check(token("dev-token"), dev(null)))
                .hasMessageContaining("is 9 characters long and the service listens on every interface")
                .hasMessageContaining("server.address=127.0.0.1");
        assertThatThrownBy(() -> DevTokenPolicy.check(token("dev-token"), dev("0.0.0.0")))
                .hasMessageContaining("listens on 0.0.0.0");
        assertThatThrownBy(() -> DevTokenPolicy.check(token("fifteen-chars-x"), dev("192.0.2.10")))
                .hasMessageContaining("listens on 192.0.2.10");
        // the dev stack: its own short token, on loopback
        assertThatCode(() -> DevTokenPolicy.check(token("dev-token"), dev("127.0.0.1"))).doesNotThrowAnyException();
        assertThatCode(() -> DevTokenPolicy.check(token("dev-token"), dev("::1"))).doesNotThrowAnyException();
        // docker-compose: every interface of the container, a long token (published on the host's loopback only)
        assertThatCode(() -> DevTokenPolicy.check(token("sixteen-chars-xx"), dev(null))).doesNotThrowAnyException();
        assertThatCode(() -> DevTokenPolicy.check(token(LONG_TOKEN), dev("0.0.0.0"))).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "127.0.1.1", "::1", "localhost"})
    void loopbackAddresses(String address) {
        assertThat(DevTokenPolicy.isLoopback(address)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "0.0.0.0", "::", "192.0.2.10"})
    void notLoopback(String address) {
        assertThat(DevTokenPolicy.isLoopback(address)).isFalse();
    }

    private static SecurityProperties token(String token) {
        return new SecurityProperties(token, null);
    }

    private static MockEnvironment dev(String serverAddress) {
        MockEnvironment environment = new MockEnvironment();
        environment.setActiveProfiles("dev");
        if (serverAddress != null) {
            environment.setProperty("server.address", serverAddress);
        }
        return environment;
    }
}
