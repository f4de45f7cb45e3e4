package dev.tollgate.client;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TraceparentTest {

    static final String VALID = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @Test
    void aW3cTraceparentIsSentAsItCame() {
        assertThat(Traceparent.valid(VALID)).isEqualTo(VALID);
        assertThat(Traceparent.valid("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")).as("not sampled").isNotNull();
    }

    @Test
    void anythingElseIsNotSent() {
        assertThat(Traceparent.valid(null)).isNull();
        assertThat(Traceparent.valid("")).isNull();
        assertThat(Traceparent.valid(VALID.toUpperCase())).as("upper case").isNull();
        assertThat(Traceparent.valid(VALID + "-")).as("too long").isNull();
        assertThat(Traceparent.valid(VALID.substring(1))).as("too short").isNull();
        assertThat(Traceparent.valid("ff" + VALID.substring(2))).as("version ff").isNull();
        assertThat(Traceparent.valid("00-00000000000000000000000000000000-00f067aa0ba902b7-01")).as("zero trace id").isNull();
        assertThat(Traceparent.valid("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01")).as("zero parent id").isNull();
        assertThat(Traceparent.valid("00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")).as("separator").isNull();
        assertThat(Traceparent.valid("00-4bf92f3577b34da6a3ce929d0e0e473\r-00f067aa0ba902b7-01")).as("a control character").isNull();
    }
}
