package dev.tollgate.bench.wire;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WrkLoadTest {

    @Test
    void readsTheCountsOfWrksReport() {
        WrkLoad.Result result = WrkLoad.parse("""
                Running 5s test @ http://127.0.0.1:18080
                  1 threads and 16 connections
                  Thread Stats   Avg      Stdev     Max   +/- Stdev
                    Latency   368.65us  545.39us  14.00ms   96.16%
                    Req/Sec    40.43k     4.58k   47.39k    72.00%
                  201058 requests in 5.00s, 88.95MB read
                  Socket errors: connect 0, read 2, write 0, timeout 3
                  Non-2xx or 3xx responses: 7
                Requests/sec:  40205.52
                """);

        assertThat(result.requests()).isEqualTo(201_058);
        assertThat(result.seconds()).isEqualTo(5.0);
        assertThat(result.answered()).isEqualTo(201_051);
        assertThat(result.failed()).isEqualTo(12);
    }

    @Test
    void aRunOfMinutesAndOneWithoutErrors() {
        WrkLoad.Result result = WrkLoad.parse("  1200 requests in 1.00m, 1.00MB read\nRequests/sec: 20.00\n");

        assertThat(result.seconds()).isEqualTo(60.0);
        assertThat(result.failed()).isZero();
    }

    @Test
    void refusesOutputWithoutACount() {
        assertThatThrownBy(() -> WrkLoad.parse("unable to connect to 127.0.0.1:1 Connection refused"))
                .hasMessageContaining("no request count");
    }
}
