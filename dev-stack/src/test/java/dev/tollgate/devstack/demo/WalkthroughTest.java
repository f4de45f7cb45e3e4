package dev.tollgate.devstack.demo;

import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class WalkthroughTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-09-30T10:15:30.123Z"), ZoneOffset.UTC);

    @Test
    void namesTheStacksRealPortsTokenAndVersions() {
        String text = new Walkthrough("127.0.0.1", List.of(9080, 9083, 9084), 9081, "s3cret", Map.of("free-global", "\"4\"")).commands(CLOCK);

        assertThat(text)
                .contains("curl -s -X POST http://127.0.0.1:9080/v1/ratelimit:check")
                .contains("\"http://127.0.0.1:{9080,9083,9084}/v1/ratelimit:check?n=[1-10]\"")
                .contains("http://127.0.0.1:9084/v1/ratelimit:check -H 'Content-Type: application/json' -d '{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"export-route\"")
                .contains("-H 'Authorization: Bearer s3cret'")
                .contains("Support console: http://127.0.0.1:9081/console/")
                .contains("-H 'If-Match: \"4\"'")
                .contains("-H 'If-Match: \"1\"'")
                .contains("\"expires_at\":\"2026-10-07T10:15:30Z\"")
                .contains("-w ' %{url_effective}\\n' | sed -E 's/^\\{\"verdict\":\"([a-z]+)\".*:([0-9]+)\\/.*n=([0-9]+)$/pod :\\2 check \\3: \\1/'");
    }

    @Test
    void withOnePodTheLoopGoesToItAlone() {
        String text = new Walkthrough("127.0.0.1", List.of(8080), 8081, "dev-token", Map.of()).commands(CLOCK);

        assertThat(text).contains("\"http://127.0.0.1:{8080}/v1/ratelimit:check?n=[1-30]\"").contains("30 checks of one Free account.\n   About 20-25 pass");
    }
}
