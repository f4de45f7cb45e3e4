package dev.tollgate.rules;

import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A region whose pods take 60% of a key without a budget (us-east in the default split): support must
 * see that 60%, not the whole limit, or a key looks far from its limit while the pods deny it.
 */
class UsageDefaultShareIT extends ServiceTestBase {

    @DynamicPropertySource
    static void defaultShare(DynamicPropertyRegistry registry) {
        registry.add("tollgate.usage.default-share", () -> "0.6");
    }

    @Test
    void aKeyWithoutABudgetGetsTheRegionsDefaultShareAndABudgetRowWins() {
        String domain = uniqueId("usage");
        String key = uniqueId("acct");
        String unbudgeted = uniqueId("growth");
        String budgeted = uniqueId("growth");
        api.put("/v1/rules/" + unbudgeted, tokenBucket(domain, 10, 100));
        api.put("/v1/rules/" + budgeted, tokenBucket(domain, 10, 100));
        jdbc.sql("INSERT INTO region_budgets (rule_id, limit_key, region, share) VALUES (?, ?, 'us-east', 0.25), (?, ?, 'eu-west', 0.75)")
                .params(budgeted, key, budgeted, key).update();

        JsonNode limits = UsageIT.usage(api, key, domain).get("limits");

        JsonNode byDefault = WatchIT.find(limits, "rule_id", unbudgeted);
        assertThat(byDefault.get("share").asDouble()).isEqualTo(0.6);
        assertThat(byDefault.get("capacity").asLong()).isEqualTo(60);
        assertThat(byDefault.get("tokens").asLong()).as("an untouched bucket is full at this region's size").isEqualTo(60);
        JsonNode byBudget = WatchIT.find(limits, "rule_id", budgeted);
        assertThat(byBudget.get("share").asDouble()).isEqualTo(0.25);
        assertThat(byBudget.get("capacity").asLong()).isEqualTo(25);
    }
}
