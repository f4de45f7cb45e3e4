package dev.tollgate.store.key;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class UsageKeysTest {

    @Test
    void windowsStartAtMultiplesOfTenSeconds() {
        assertThat(UsageKeys.windowStart(1_727_712_000_000L)).isEqualTo(1_727_712_000L);
        assertThat(UsageKeys.windowStart(1_727_712_009_999L)).isEqualTo(1_727_712_000L);
        assertThat(UsageKeys.windowStart(1_727_712_010_000L)).isEqualTo(1_727_712_010L);
    }

    @Test
    void theWindowToReadIsTheNewestThatClosedBeforeTheLag() {
        // at 12.5 s past the window start, with a 2 s lag, window [0, 10) has closed and is complete
        assertThat(UsageKeys.lastClosedWindow(1_727_712_012_500L, Duration.ofSeconds(2))).isEqualTo(1_727_712_000L);
        // at 11.5 s the pods may still be flushing its last second: read the one before
        assertThat(UsageKeys.lastClosedWindow(1_727_712_011_500L, Duration.ofSeconds(2))).isEqualTo(1_727_711_990L);
    }

    @Test
    void namesAWindowHashByShardAndStart() {
        assertThat(UsageKeys.window(17, 1_727_712_000L)).isEqualTo("u:{17}:1727712000");
        assertThat(UsageKeys.windows(1_727_712_000L)).hasSize(UsageKeys.SHARDS).startsWith("u:{0}:1727712000")
                .endsWith("u:{255}:1727712000");
    }

    @Test
    void aFieldSplitsAtTheFirstColonSoKeysMayHoldColons() {
        String field = UsageKeys.field("growth-global", "user:{alice}:x");

        assertThat(field).isEqualTo("growth-global:user:{alice}:x");
        assertThat(UsageKeys.Field.parse(field)).isEqualTo(new UsageKeys.Field("growth-global", "user:{alice}:x"));
    }

    @Test
    void refusesWhatItCannotSplitAgain() {
        assertThat(UsageKeys.field("bad:rule", "acct")).isNull();
        assertThat(UsageKeys.Field.parse("no-colon")).isNull();
        assertThat(UsageKeys.Field.parse(":acct")).isNull();
        assertThat(UsageKeys.Field.parse("rule:")).isNull();
    }

    @Test
    void spreadsSimilarKeysOverManyShardsAndAlwaysTheSameWay() {
        Set<Integer> shards = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            int shard = UsageKeys.shardOf(UsageKeys.field("growth-global", "acct_" + i));
            assertThat(shard).isBetween(0, UsageKeys.SHARDS - 1);
            shards.add(shard);
        }
        assertThat(shards).hasSize(UsageKeys.SHARDS);
        // a writer and a reader in different JVMs must agree: String.hashCode is specified
        assertThat(UsageKeys.shardOf("growth-global:acct_7Q2")).isEqualTo(UsageKeys.shardOf(new String("growth-global:acct_7Q2")));
        assertThat(UsageKeys.windowOf("growth-global", "acct_7Q2", 10L))
                .isEqualTo(UsageKeys.window(UsageKeys.shardOf("growth-global:acct_7Q2"), 10L));
    }
}
