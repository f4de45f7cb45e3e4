package dev.tollgate.limiter;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.CheckProblem;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.Verdict;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Mode;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.testsupport.redis.Node;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;

import static dev.tollgate.limiter.LimiterFixture.check;
import static dev.tollgate.limiter.LimiterFixture.uniqueKey;
import static org.assertj.core.api.Assertions.assertThat;

/** Key naming, slots, script loading and the entry kinds that are not plain spends. */
class KeysAndScriptsIT {

    private static final Match GROWTH = new Match("growth", null);
    @RegisterExtension
    static final LimiterFixture fixture = new LimiterFixture();

    @Test
    void keysThatEnvoyWouldCollideLandInDistinctBuckets() {
        Rule c = Rule.tokenBucket("c", "api", 1, 5).withMatch(GROWTH);
        Rule bc = Rule.tokenBucket("b_c", "api", 1, 5).withMatch(GROWTH);
        Limiter limiter = fixture.limiter(c, bc);
        String suffix = uniqueKey("");
        String left = "a_b" + suffix;
        String right = "a" + suffix;

        check(limiter, "api", CheckEntry.of("c", left, 1));
        check(limiter, "api", CheckEntry.of("b_c", right, 1));

        assertThat(fixture.redis().hget(RedisKeys.limit(left, "c"), "tokens_milli")).isEqualTo("4000");
        assertThat(fixture.redis().hget(RedisKeys.limit(right, "b_c"), "tokens_milli")).isEqualTo("4000");
        assertThat(RedisKeys.limit(left, "c")).isNotEqualTo(RedisKeys.limit(right, "b_c"));
    }

    @Test
    void aKeyHoldingAnotherKeysHashTagStaysOnTheSlotOfItsOwnAccount() {
        Rule rule = Rule.tokenBucket("growth-global", "api", 10, 20).withMatch(GROWTH).withMaxCost(5);
        Limiter limiter = fixture.limiter(rule);
        String victim = uniqueKey("victim");
        String attacker = "{" + victim + "}";

        check(limiter, "api", CheckEntry.of("growth-global", victim, 1));
        check(limiter, "api", CheckEntry.of("growth-global", attacker, 5));

        String victimBucket = RedisKeys.limit(victim, "growth-global");
        String attackerBucket = RedisKeys.limit(attacker, "growth-global");
        assertThat(fixture.redis().hget(victimBucket, "tokens_milli")).isEqualTo("19000");
        assertThat(fixture.redis().hget(attackerBucket, "tokens_milli")).isEqualTo("15000");
        assertThat(fixture.redis().clusterKeyslot(attackerBucket)).isEqualTo((long) SlotHash.getSlot(RedisKeys.hashTag(attacker)));
    }

    @Test
    void allLimitsOfOneAccountLiveOnOneSlotOfOnePrimary() {
        Rule account = Rule.tokenBucket("growth-global", "api", 10, 20).withMatch(GROWTH);
        Rule route = Rule.tokenBucket("labels-route", "api", 10, 20).withMatch(GROWTH);
        Rule daily = Rule.fixedWindow("growth-daily", "api", 100, 86_400).withMatch(GROWTH);
        Limiter limiter = fixture.limiter(account, route, daily);
        String key = uniqueKey("acct");
        check(limiter, "api", CheckEntry.of("growth-global", key, 1), CheckEntry.of("labels-route", key, 1), CheckEntry.of("growth-daily", key, 1));

        long slot = fixture.redis().clusterKeyslot(RedisKeys.limit(key, "growth-global"));
        assertThat(fixture.redis().clusterKeyslot(RedisKeys.limit(key, "labels-route"))).isEqualTo(slot);
        assertThat(fixture.redis().clusterKeyslot(RedisKeys.window(key, "growth-daily", "2026-09-30"))).isEqualTo(slot);
        assertThat(fixture.cluster.primaryForKey(RedisKeys.limit(key, "labels-route")).nodeId())
                .isEqualTo(fixture.cluster.primaryForKey(RedisKeys.limit(key, "growth-global")).nodeId());
    }

    @Test
    void recoversFromNoscriptWithoutSpendingTwice() {
        Rule rule = Rule.tokenBucket("growth-global", "api", 1, 10).withMatch(GROWTH);
        Limiter limiter = fixture.limiter(rule);
        String key = uniqueKey("acct");
        check(limiter, "api", CheckEntry.of("growth-global", key, 1));

        for (Node node : fixture.cluster.primaries()) {
            try (RedisClient client = RedisClient.create(node.uri());
                 StatefulRedisConnection<String, String> connection = client.connect()) {
                connection.sync().scriptFlush();
            }
        }
        CheckResponse response = check(limiter, "api", CheckEntry.of("growth-global", key, 1));
        assertThat(response.allowed()).isTrue();
        assertThat(response.entries().get(0).remaining()).isEqualTo(8);
    }

    @Test
    void anUnknownRuleIsAllowedFlaggedAndCounted() {
        Limiter limiter = fixture.limiter(Rule.tokenBucket("known", "api", 1, 1).withMatch(GROWTH));
        double before = fixture.metrics.registry().counter("tollgate.unknown.rules").count();
        CheckResponse response = check(limiter, "api", CheckEntry.of("nope", "k", 1), CheckEntry.of("known", uniqueKey("k"), 1));
        assertThat(response.allowed()).isTrue();
        assertThat(response.entries().get(0).unknownRule()).isTrue();
        assertThat(response.entries().get(1).unknownRule()).isNull();
        assertThat(fixture.metrics.registry().counter("tollgate.unknown.rules").count()).isEqualTo(before + 1);
    }

    @Test
    void aRuleOfAnotherDomainIsUnknownHere() {
        Limiter limiter = fixture.limiter(Rule.tokenBucket("known", "api", 1, 1).withMatch(GROWTH));
        assertThat(check(limiter, "other", CheckEntry.of("known", "k", 1)).entries().get(0).unknownRule()).isTrue();
    }

    @Test
    void aShadowRuleOverItsLimitNeitherDeniesNorBlocksTheEnforcedSpend() {
        Rule enforced = Rule.tokenBucket("growth-global", "api", 1, 10).withMatch(GROWTH);
        Rule shadow = Rule.tokenBucket("new-route", "api", 1, 1).withMatch(new Match("growth", "/new")).withMode(Mode.SHADOW);
        Limiter limiter = fixture.limiter(enforced, shadow);
        String key = uniqueKey("acct");

        check(limiter, "api", CheckEntry.of("growth-global", key, 1), CheckEntry.of("new-route", key, 1));
        CheckResponse response = check(limiter, "api", CheckEntry.of("growth-global", key, 1), CheckEntry.of("new-route", key, 1));
        assertThat(response.verdict()).isEqualTo(Verdict.ALLOW);
        assertThat(response.entries().get(0).remaining()).isEqualTo(8);
        assertThat(response.entries().get(1).verdict()).isEqualTo(Verdict.DENY);
        assertThat(response.entries().get(1).shadow()).isTrue();
        assertThat(fixture.metrics.registry().counter("tollgate.shadow.denies", "rule", "new-route").count()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void aCostAboveTheRulesLargestIsRefusedBeforeAnyStoreCall() {
        Rule rule = Rule.tokenBucket("growth-global", "api", 10, 20).withMatch(GROWTH).withMaxCost(5);
        Limiter limiter = fixture.limiter(rule);
        String key = uniqueKey("acct");
        Outcome outcome = limiter.check(new CheckRequest("api", List.of(CheckEntry.of("growth-global", key, 6)))).join();
        assertThat(outcome).isInstanceOfSatisfying(Outcome.Invalid.class,
                invalid -> assertThat(invalid.problems()).extracting(CheckProblem::path).containsExactly("entries[0].cost"));
        assertThat(fixture.redis().exists(RedisKeys.limit(key, "growth-global"))).isZero();
    }

    @Test
    void aRuleSwitchedFromBucketToLogStartsAFreshLogOnLiveKeys() {
        // the log used to share the bucket's name, so every call met a hash (WRONGTYPE) until it expired
        Match login = new Match(null, "/login");
        Rule asBucket = Rule.of("login-ip", "auth", new Limit.TokenBucket(1, 86_400, 5)).withMatch(login);
        Rule asLog = Rule.slidingLog("login-ip", "auth", 5, 60).withMatch(login);
        String ip = uniqueKey("ip");
        assertThat(check(fixture.limiter(asBucket), "auth", CheckEntry.of("login-ip", ip, 1)).allowed()).isTrue();

        Limiter switched = fixture.limiter(asLog);
        for (int i = 0; i < 5; i++) {
            CheckResponse response = check(switched, "auth", CheckEntry.of("login-ip", ip, 1));
            assertThat(response.allowed()).isTrue();
            assertThat(response.entries().get(0).fallback()).isNull();
        }
        assertThat(check(switched, "auth", CheckEntry.of("login-ip", ip, 1)).allowed()).isFalse();
        assertThat(fixture.redis().type(RedisKeys.limit(ip, "login-ip"))).isEqualTo("hash");
        assertThat(fixture.redis().type(RedisKeys.log(ip, "login-ip"))).isEqualTo("zset");
    }

    @Test
    void aKeyHoldingTheWrongTypeFailsItsOwnChecksButNeverItsShards() {
        // a key written by something else (or an older release) errors in the script: that key's fail mode
        // answers, and the shard's breaker stays closed for every other key on it
        Rule rule = Rule.tokenBucket("growth-global", "api", 10, 20).withMatch(GROWTH);
        Limiter limiter = fixture.limiter(rule);
        String bad = uniqueKey("acct");
        fixture.redis().set(RedisKeys.limit(bad, "growth-global"), "not a hash");
        for (int i = 0; i < 5; i++) {
            assertThat(check(limiter, "api", CheckEntry.of("growth-global", bad, 1)).entries().get(0).fallback()).isEqualTo("fail_open");
        }
        String neighbour = bad + "-n";
        int tries = 0;
        while (!fixture.cluster.primaryForKey(RedisKeys.hashTag(neighbour)).nodeId()
                .equals(fixture.cluster.primaryForKey(RedisKeys.hashTag(bad)).nodeId())) {
            neighbour = bad + "-n" + ++tries;
        }
        CheckResponse onSameShard = check(limiter, "api", CheckEntry.of("growth-global", neighbour, 1));
        assertThat(onSameShard.entries().get(0).fallback()).as("the shard's breaker stayed closed").isNull();
    }
}
