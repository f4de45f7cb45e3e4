package dev.tollgate.check.chaos;

import dev.tollgate.common.rule.Rule;
import io.lettuce.core.cluster.SlotHash;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The limits a scenario checks: every rule on the same keys, with keys spread evenly over the three primaries as
 * {@link dev.tollgate.testsupport.redis.RedisCluster} assigns slots (thirds of the 16384), so that every shard
 * holds fail-open and fail-closed limits of every algorithm, some of them hot. Chosen by slot alone, so they can be
 * chosen before the cluster exists; which of them a fault hits is asked of the live cluster when the fault starts.
 */
final class Targets {

    static final int SHARDS = 3;

    private final List<Target> all;
    private final int totalWeight;

    private Targets(List<Target> all) {
        this.all = List.copyOf(all);
        this.totalWeight = all.stream().mapToInt(Target::weight).sum();
    }

    /**
     * @param prefix      makes the keys the scenario's own
     * @param keysPerShard ordinary keys per shard, each checked about as often as its limits refill
     * @param hotPerShard  hot keys per shard, each checked {@code hotWeight} times as often
     */
    static Targets spread(ChaosRules rules, String prefix, int keysPerShard, int hotPerShard, int hotWeight) {
        List<Target> targets = new ArrayList<>();
        for (int shard = 0; shard < SHARDS; shard++) {
            List<String> keys = keysOnShard(prefix, shard, keysPerShard + hotPerShard);
            for (int i = 0; i < keys.size(); i++) {
                int weight = i < keysPerShard ? 1 : hotWeight;
                for (Rule rule : rules.all()) {
                    targets.add(new Target(rule, keys.get(i), weight));
                }
            }
        }
        return new Targets(targets);
    }

    List<Target> all() {
        return all;
    }

    List<String> keys() {
        return all.stream().map(Target::key).distinct().toList();
    }

    /** These targets but those of the given keys: load that leaves a shard to the scenario's own checks. */
    Targets without(Set<String> keys) {
        return new Targets(all.stream().filter(target -> !keys.contains(target.key())).toList());
    }

    Target pick() {
        int ticket = ThreadLocalRandom.current().nextInt(totalWeight);
        for (Target target : all) {
            ticket -= target.weight();
            if (ticket < 0) {
                return target;
            }
        }
        throw new IllegalStateException("weights changed under the picker");
    }

    /** The first {@code count} keys {@code prefix-shard-n} whose slots the {@code shard}th primary owns. */
    static List<String> keysOnShard(String prefix, int shard, int count) {
        List<String> keys = new ArrayList<>();
        for (int n = 0; keys.size() < count; n++) {
            String key = prefix + "-" + shard + "-" + n;
            if (shardOf(SlotHash.getSlot("{" + key + "}")) == shard) {
                keys.add(key);
            }
        }
        return keys;
    }

    /** As RedisCluster builds it: primary i owns slots [i·16384/3, (i+1)·16384/3). */
    private static int shardOf(int slot) {
        for (int shard = 0; shard < SHARDS; shard++) {
            if (slot < (shard + 1) * SlotHash.SLOT_COUNT / SHARDS) {
                return shard;
            }
        }
        throw new IllegalArgumentException("slot " + slot);
    }
}
