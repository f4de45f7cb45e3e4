package dev.tollgate.store.key;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RedisKeysTest {

    @Test
    void plainAccountIdsStayReadable() {
        assertThat(RedisKeys.limit("acct_7Q2", "growth-global")).isEqualTo("rl:{acct_7Q2}:growth-global");
        assertThat(RedisKeys.window("acct_7Q2", "free-daily", "2026-09-30")).isEqualTo("q:{acct_7Q2}:free-daily:2026-09-30");
    }

    @Test
    void aKeyCannotChooseAnotherKeysSlot() {
        String attacker = RedisKeys.limit("{acct_victim}", "r");
        assertThat(attacker).isEqualTo("rl:{%7Bacct_victim%7D}:r");
        assertThat(SlotHash.getSlot(attacker)).isEqualTo(SlotHash.getSlot("%7Bacct_victim%7D"));
        // a closing brace inside the key cannot end the tag early either
        assertThat(RedisKeys.limit("a}b", "r")).isEqualTo("rl:{a%7Db}:r");
    }

    @Test
    void keysThatEnvoyJoinsIntoOneNameStayDistinct() {
        // envoy's service joins descriptor parts with '_': (a_b, c) and (a, b_c) collide there
        assertThat(RedisKeys.limit("a_b", "c")).isNotEqualTo(RedisKeys.limit("a", "b_c"));
        assertThat(RedisKeys.limit("a:b", "c")).isNotEqualTo(RedisKeys.limit("a", "b:c"));
        assertThat(RedisKeys.limit("a%3Ab", "c")).isNotEqualTo(RedisKeys.limit("a:b", "c"));
    }

    @Test
    void allLimitsOfOneKeyShareItsSlot() {
        String key = "user{with}:odd_chars ü";
        int slot = SlotHash.getSlot(RedisKeys.limit(key, "growth-global"));
        assertThat(SlotHash.getSlot(RedisKeys.limit(key, "labels-route"))).isEqualTo(slot);
        assertThat(SlotHash.getSlot(RedisKeys.window(key, "free-daily", "2026-09-30"))).isEqualTo(slot);
        assertThat(SlotHash.getSlot(RedisKeys.hashTag(key))).isEqualTo(slot);
    }

    @Test
    void encodesNonAsciiAsUtf8Bytes() {
        assertThat(RedisKeys.encode("ü")).isEqualTo("%C3%BC");
        assertThat(RedisKeys.encode("a b%")).isEqualTo("a%20b%25");
    }
}
