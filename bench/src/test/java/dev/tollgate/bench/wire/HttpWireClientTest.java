package dev.tollgate.bench.wire;

import dev.tollgate.bench.load.Answer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class HttpWireClientTest {

    @Test
    void anAnswerIsCountedByItsVerdictAndWhetherItCameFromTheFallback() {
        assertThat(classify(200, "{\"verdict\":\"allow\",\"entries\":[{\"rule\":\"free\",\"verdict\":\"allow\"}]}"))
                .isEqualTo(Answer.ALLOWED);
        assertThat(classify(200, "{\"verdict\":\"deny\",\"entries\":[{\"rule\":\"free\",\"verdict\":\"deny\",\"retry_ms\":100}]}"))
                .isEqualTo(Answer.DENIED);
        assertThat(classify(200, "{\"verdict\":\"allow\",\"entries\":[{\"rule\":\"free\",\"fallback\":\"store_timeout\"}]}"))
                .isEqualTo(Answer.FALLBACK_ALLOWED);
        assertThat(classify(200, "{\"verdict\":\"deny\",\"entries\":[{\"rule\":\"free\",\"fallback\":\"fail_open\"}]}"))
                .isEqualTo(Answer.FALLBACK_DENIED);
    }

    @Test
    void aProblemOrAnAnswerWithoutAVerdictIsAFailure() {
        assertThat(classify(503, "{\"code\":\"rules_unavailable\"}")).isEqualTo(Answer.FAILED);
        assertThat(classify(400, "{\"verdict\":\"allow\"}")).isEqualTo(Answer.FAILED);
        assertThat(classify(200, "")).isEqualTo(Answer.FAILED);
        assertThat(classify(200, "{\"verdict\":\"maybe\"}")).isEqualTo(Answer.FAILED);
    }

    @Test
    void onlyAnEnforcedVerdictOfAKnownRuleEndsAColdStart() {
        assertThat(ServerUnderTest.enforced(bytes("{\"verdict\":\"allow\",\"entries\":[{\"rule\":\"enterprise\"}]}"))).isTrue();
        assertThat(ServerUnderTest.enforced(bytes("{\"verdict\":\"deny\",\"entries\":[{\"rule\":\"enterprise\"}]}"))).isTrue();
        assertThat(ServerUnderTest.enforced(bytes("{\"verdict\":\"allow\",\"entries\":[{\"rule\":\"enterprise\",\"unknown_rule\":true}]}")))
                .isFalse();
        assertThat(ServerUnderTest.enforced(bytes("{\"verdict\":\"allow\",\"entries\":[{\"rule\":\"enterprise\",\"fallback\":\"fail_open\"}]}")))
                .isFalse();
    }

    private static Answer classify(int status, String body) {
        return HttpWireClient.classify(status, bytes(body));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
