package dev.tollgate.common.rule;

import dev.tollgate.common.wire.WireFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.exc.ValueInstantiationException;
import tools.jackson.databind.json.JsonMapper;

import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A rule's JSON is the contract of the rules API, of the snapshot every pod downloads and of the history:
 * typed in Java, it stays flat and byte for byte what the 14-field record wrote. The expected texts were
 * written by that record (at a1784d7), one per algorithm and one per default that shows.
 */
class RuleJsonTest {

    private static final JsonMapper JSON = WireFormat.configure(JsonMapper.builder()).build();

    static final Rule GROWTH = Rule.tokenBucket("growth-global", "public-api", 100, 200).withMatch(new Match("growth", null)).withVersion(3);
    static final Rule EXPORTS = Rule.of("exports", "public-api", new Limit.TokenBucket(1, 60, 1))
            .withMatch(new Match("growth", "/v1/exports")).withMode(Mode.SHADOW).withVersion(7);
    static final Rule LOGIN = Rule.slidingLog("login-ip", "auth", 5, 60).withMatch(new Match(null, "/login"));
    static final Rule DAILY = Rule.fixedWindow("free-daily", "public-api", 10_000, 86_400).withMatch(new Match("free", null))
            .withMaxCost(10).withFailMode(FailMode.CLOSED).withVersion(2);

    static Stream<Arguments> rules() {
        return Stream.of(
                Arguments.of("token bucket per second", GROWTH, "{\"id\":\"growth-global\",\"domain\":\"public-api\",\"match\":{\"plan\":\"growth\"},"
                        + "\"identity\":\"api_key\",\"algorithm\":\"token_bucket\",\"rate_per_s\":100,\"period_s\":1,\"burst\":200,"
                        + "\"mode\":\"enforce\",\"fail_mode\":\"open\",\"max_cost\":1,\"version\":3}"),
                Arguments.of("token bucket per minute, shadowed", EXPORTS, "{\"id\":\"exports\",\"domain\":\"public-api\","
                        + "\"match\":{\"plan\":\"growth\",\"route\":\"/v1/exports\"},\"identity\":\"api_key\",\"algorithm\":\"token_bucket\","
                        + "\"rate_per_s\":1,\"period_s\":60,\"burst\":1,\"mode\":\"shadow\",\"fail_mode\":\"open\",\"max_cost\":1,\"version\":7}"),
                Arguments.of("sliding log", LOGIN, "{\"id\":\"login-ip\",\"domain\":\"auth\",\"match\":{\"route\":\"/login\"},\"identity\":\"ip\","
                        + "\"algorithm\":\"sliding_log\",\"limit\":5,\"window_s\":60,\"mode\":\"enforce\",\"fail_mode\":\"closed\",\"max_cost\":1,\"version\":1}"),
                Arguments.of("fixed window", DAILY, "{\"id\":\"free-daily\",\"domain\":\"public-api\",\"match\":{\"plan\":\"free\"},"
                        + "\"identity\":\"api_key\",\"algorithm\":\"fixed_window\",\"limit\":10000,\"window_s\":86400,\"mode\":\"enforce\","
                        + "\"fail_mode\":\"closed\",\"max_cost\":10,\"version\":2}"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rules")
    void writesEachAlgorithmFlatAsBeforeAndReadsItBack(String why, Rule rule, String json) {
        assertThat(JSON.writeValueAsString(rule)).isEqualTo(json);
        assertThat(JSON.readValue(json, Rule.class)).isEqualTo(rule);
    }

    @Test
    void writesASnapshotAsBeforeWithItsDescriptorMappingsAfter() {
        RuleSnapshot snapshot = new RuleSnapshot(42, List.of(GROWTH, EXPORTS, LOGIN, DAILY),
                List.of(new AccountOverride("acct_1", "growth-global", 500, 1000, Instant.parse("2030-01-01T00:00:00Z"), "launch")),
                List.of(new RegionBudget("growth-global", "acct_1", "us-east", 0.6, Instant.parse("2026-01-01T00:00:00Z"))));
        String rules = rules().map(arguments -> (String) arguments.get()[2]).reduce((a, b) -> a + "," + b).orElseThrow();

        String written = JSON.writeValueAsString(snapshot);

        assertThat(written).isEqualTo("{\"revision\":42,\"rules\":[" + rules + "],\"overrides\":[{\"account_id\":\"acct_1\","
                + "\"rule_id\":\"growth-global\",\"rate_per_s\":500,\"burst\":1000,\"expires_at\":\"2030-01-01T00:00:00Z\",\"reason\":\"launch\"}],"
                + "\"region_budgets\":[{\"rule_id\":\"growth-global\",\"limit_key\":\"acct_1\",\"region\":\"us-east\",\"share\":0.6,"
                + "\"updated_at\":\"2026-01-01T00:00:00Z\"}],\"descriptor_domains\":[]}");
        assertThat(JSON.readValue(written, RuleSnapshot.class)).isEqualTo(snapshot);
    }

    @Test
    void readsTheDefaultsARulesFileLeavesOut() {
        Rule read = JSON.readValue("{\"id\":\"free-global\",\"domain\":\"public-api\",\"match\":{\"plan\":\"free\"},"
                + "\"algorithm\":\"token_bucket\",\"rate_per_s\":10,\"burst\":20,\"version\":1}", Rule.class);

        assertThat(read).isEqualTo(Rule.tokenBucket("free-global", "public-api", 10, 20).withMatch(new Match("free", null)));
    }

    @Test
    void leavesBehindTheFieldsOfAnotherAlgorithmWhenReading() {
        // an older store may hold them; a pod enforces the rule's own algorithm and never looked at them
        Rule read = JSON.readValue("{\"id\":\"login-ip\",\"domain\":\"auth\",\"match\":{\"route\":\"/login\"},\"identity\":\"ip\","
                + "\"algorithm\":\"sliding_log\",\"rate_per_s\":3,\"limit\":5,\"window_s\":60,\"fail_mode\":\"closed\",\"version\":1}", Rule.class);

        assertThat(read).isEqualTo(LOGIN);
    }

    @Test
    void refusesToReadARuleWithoutItsAlgorithmOrItsNumbers() {
        assertThatThrownBy(() -> JSON.readValue("{\"id\":\"r\",\"domain\":\"d\",\"algorithm\":\"token_bucket\",\"burst\":20,\"version\":1}", Rule.class))
                .isInstanceOf(ValueInstantiationException.class)
                .hasMessageContaining("rule r lacks rate_per_s, which token_bucket needs");
        assertThatThrownBy(() -> JSON.readValue("{\"id\":\"r\",\"domain\":\"d\",\"limit\":5,\"window_s\":60,\"version\":1}", Rule.class))
                .isInstanceOf(ValueInstantiationException.class)
                .hasMessageContaining("rule r lacks algorithm");
    }

    @Test
    void writesCountingOnlyWhenARuleCountsAfterAndReadsItBack() {
        Rule perIp = Rule.tokenBucket("flood-ip", "edge", 50, 100).withMatch(new Match(null, "/")).withCounting(Counting.AFTER);

        String written = JSON.writeValueAsString(perIp);

        assertThat(written).isEqualTo("{\"id\":\"flood-ip\",\"domain\":\"edge\",\"match\":{\"route\":\"/\"},\"identity\":\"api_key\","
                + "\"algorithm\":\"token_bucket\",\"rate_per_s\":50,\"period_s\":1,\"burst\":100,\"mode\":\"enforce\",\"fail_mode\":\"open\","
                + "\"max_cost\":1,\"counting\":\"after\",\"version\":1}");
        assertThat(JSON.readValue(written, Rule.class)).isEqualTo(perIp);
        assertThat(JSON.readValue(written.replace("\"after\"", "\"inline\""), Rule.class).counting()).isEqualTo(Counting.INLINE);
        assertThat(JSON.writeValueAsString(GROWTH)).doesNotContain("counting");
    }
}
