package dev.tollgate.check.access;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ServiceTokensTest {

    private static final String OLD = "old-token-0123456789abcdef";
    private static final String NEW = "new-token-0123456789abcdef";

    @Test
    void noTokensMeansOpenPorts() {
        ServiceTokens none = ServiceTokens.of(List.of());
        assertThat(none.required()).isFalse();
        assertThat(none.accepts(null)).isTrue();
        assertThat(ServiceTokens.of(List.of("", " ")).required()).isFalse();
    }

    @Test
    void acceptsEveryConfiguredTokenAsABearerWhileOneIsRotated() {
        ServiceTokens tokens = ServiceTokens.of(List.of(OLD, NEW));
        assertThat(tokens.accepts("Bearer " + OLD)).isTrue();
        assertThat(tokens.accepts("bearer " + NEW)).isTrue();
        assertThat(tokens.accepts("Bearer  " + NEW + " ")).isTrue();
    }

    @Test
    void refusesAnythingElse() {
        ServiceTokens tokens = ServiceTokens.of(List.of(NEW));
        assertThat(tokens.accepts(null)).isFalse();
        assertThat(tokens.accepts("")).isFalse();
        assertThat(tokens.accepts(NEW)).isFalse();
        assertThat(tokens.accepts("Basic " + NEW)).isFalse();
        assertThat(tokens.accepts("Bearer ")).isFalse();
        assertThat(tokens.accepts("Bearer " + NEW + "x")).isFalse();
        assertThat(tokens.accepts("Bearer " + OLD)).isFalse();
    }

    @Test
    void aShortTokenStopsThePodWithoutBeingNamed() {
        assertThatThrownBy(() -> ServiceTokens.of(List.of("hunter2")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 16 characters")
                .hasMessageNotContaining("hunter2");
    }
}
