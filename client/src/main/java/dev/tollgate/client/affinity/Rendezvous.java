package dev.tollgate.client.affinity;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Rendezvous (highest random weight) hashing of keys over named nodes: a key's nodes in the order of the score
 * {@code hash(key, node)}, highest first. Every client that knows the same node names computes the same order,
 * whatever order it learnt them in; removing a node moves only the keys whose first node it was (each to its
 * second), and adding one takes about 1/n of the keys, all to itself. No virtual nodes are needed for balance:
 * each key draws an independent score per node.
 *
 * <p>Nodes are named by what every client sees alike (a pod's address and port), never by a local index.
 */
public final class Rendezvous {

    private final List<String> names;
    private final long[] seeds;

    private Rendezvous(List<String> names) {
        this.names = List.copyOf(names);
        this.seeds = new long[this.names.size()];
        for (int i = 0; i < seeds.length; i++) {
            seeds[i] = mix(hash(this.names.get(i)));
        }
    }

    public static Rendezvous of(List<String> nodeNames) {
        return new Rendezvous(nodeNames);
    }

    public List<String> names() {
        return names;
    }

    public int size() {
        return names.size();
    }

    /** The index (in {@link #names()}) of the node the key goes to first; -1 when there is none. */
    public int first(String key) {
        long keyHash = hash(key);
        int best = -1;
        long bestScore = 0;
        for (int i = 0; i < seeds.length; i++) {
            long score = score(keyHash, i);
            if (best < 0 || Long.compareUnsigned(score, bestScore) > 0) {
                best = i;
                bestScore = score;
            }
        }
        return best;
    }

    /** Every node's index, in the order the key tries them. */
    public int[] order(String key) {
        long keyHash = hash(key);
        int n = seeds.length;
        long[] scores = new long[n];
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            scores[i] = score(keyHash, i);
            order[i] = i;
        }
        // insertion sort, highest score first: a handful to a few dozen pods
        for (int i = 1; i < n; i++) {
            int node = order[i];
            int j = i - 1;
            while (j >= 0 && Long.compareUnsigned(scores[order[j]], scores[node]) < 0) {
                order[j + 1] = order[j];
                j--;
            }
            order[j + 1] = node;
        }
        return order;
    }

    private long score(long keyHash, int node) {
        return mix(keyHash ^ seeds[node]);
    }

    /** 64-bit FNV-1a over the UTF-8 bytes: stable across JVMs and releases, unlike {@code String.hashCode} mixing. */
    static long hash(String text) {
        long h = 0xcbf29ce484222325L;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** MurmurHash3's 64-bit finalizer: every input bit flips about half the output bits. */
    static long mix(long h) {
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }
}
