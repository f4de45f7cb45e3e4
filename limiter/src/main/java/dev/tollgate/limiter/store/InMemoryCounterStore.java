package dev.tollgate.limiter.store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The counter store in one process, for tests of code that embeds the engine: the same scripts' semantics
 * (token bucket with leases and the deny queue, sliding log, fixed window, refund, pod heartbeat) in Java,
 * atomic per call as Redis runs a script, on an injected clock. {@code CounterStoreContract} runs one suite
 * against this and against a real Redis Cluster, so the two cannot drift apart; production never uses it.
 */
public final class InMemoryCounterStore implements CounterStore {

    private static final long MAX_HOLD_MS = 1000;

    private record Bucket(long tokensMilli, long tsMs, long qUs) {
    }

    /** What a key holds, and until when (ms on the store's clock; Long.MAX_VALUE: no expiry). */
    private record Value(Object data, long expiresAtMs) {
    }

    private final Map<String, Value> keys = new HashMap<>();
    private final LongSupplier micros;

    /** @param micros the store's clock in microseconds since the epoch (Redis TIME) */
    public InMemoryCounterStore(LongSupplier micros) {
        this.micros = micros;
    }

    @Override
    public synchronized CompletableFuture<List<Long>> run(LuaScript script, List<String> keyList, List<String> args) {
        try {
            requireOneSlot(keyList);
            long nowUs = micros.getAsLong();
            List<Long> reply = switch (script.name()) {
                case "token_bucket" -> tokenBucket(keyList, args, nowUs);
                case "sliding_log" -> slidingLog(keyList, args, nowUs);
                case "fixed_window" -> fixedWindow(keyList, args, nowUs / 1000);
                case "refund" -> refund(keyList, args, nowUs / 1000);
                case "pod_heartbeat" -> heartbeat(keyList, args, nowUs / 1000);
                default -> throw new StoreException(StoreException.Kind.UNAVAILABLE, "script_error", "no such script: " + script, null);
            };
            return CompletableFuture.completedFuture(reply);
        } catch (StoreException e) {
            return CompletableFuture.failedFuture(e);
        } catch (ClassCastException e) {
            return CompletableFuture.failedFuture(new StoreException(StoreException.Kind.UNAVAILABLE, "script_error",
                    script + " failed: WRONGTYPE Operation against a key holding the wrong kind of value (user_script)", null));
        }
    }

    private List<Long> tokenBucket(List<String> keyList, List<String> args, long nowUs) {
        long now = Math.floorDiv(nowUs, 1000);
        long want = Long.parseLong(args.get(0));
        long pods = Long.parseLong(args.get(1));
        int n = keyList.size();
        long[] level = new long[n];
        long[] last = new long[n];
        long[] tail = new long[n];
        long grant = want;
        for (int i = 0; i < n; i++) {
            long refill = arg(args, 2 + 4 * i + 0), period = arg(args, 2 + 4 * i + 1);
            long burst = arg(args, 2 + 4 * i + 2), cost = arg(args, 2 + 4 * i + 3);
            Bucket s = get(keyList.get(i), Bucket.class, now);
            BucketLevel refilled = s == null ? BucketLevel.at(now, null, null, refill, period, burst)
                    : BucketLevel.at(now, s.tokensMilli(), s.tsMs(), refill, period, burst);
            long l = refilled.milli();
            level[i] = l;
            last[i] = refilled.tsMs();
            tail[i] = s == null ? 0 : s.qUs();
            long whole = Math.floorDiv(l, 1000);
            if (whole < cost) {
                grant = 0;
            } else if (grant > 0) {
                grant = Math.min(grant, Math.max(1, Math.floorDiv(whole, 2 * pods * cost)));
            }
        }
        List<Long> reply = new ArrayList<>(List.of(grant, 0L, 0L));
        long retry = 0;
        long hold = 0;
        for (int i = 0; i < n; i++) {
            long refill = arg(args, 2 + 4 * i + 0), period = arg(args, 2 + 4 * i + 1);
            long burst = arg(args, 2 + 4 * i + 2), cost = arg(args, 2 + 4 * i + 3);
            long l = level[i] - grant * cost * 1000;
            long ts = last[i];
            long q = tail[i];
            if (l < cost * 1000) {
                long wait = Math.max(1, ts + ceilDiv((cost * 1000 - l) * period, refill) - now);
                if (grant == 0) {
                    retry = Math.max(retry, wait);
                }
                long slotUs = tail[i] + ceilDiv(cost * 1_000_000 * period, refill) - nowUs;
                long fill = ceilDiv((burst - l) * period, refill) - (now - ts);
                long heldUs = Math.max(wait * 1000, Math.min(slotUs, Math.min(fill * 1000, MAX_HOLD_MS * 1000)));
                hold = Math.max(hold, ceilDiv(heldUs, 1000));
                q = nowUs + heldUs;
            }
            put(keyList.get(i), new Bucket(l, ts, q), now + ceilDiv(burst * period, refill) * 2);
            reply.add(Math.floorDiv(l, 1000));
            reply.add(Math.max(0, ts + ceilDiv((burst - l) * period, refill) - now));
        }
        reply.set(1, retry);
        reply.set(2, hold);
        return reply;
    }

    /** A sorted set as Redis orders it: by score, then by member. */
    @SuppressWarnings("unchecked")
    private TreeMap<String, Long> log(String key, long now) {
        TreeMap<String, Long> log = get(key, TreeMap.class, now);
        return log != null ? log : new TreeMap<>();
    }

    private static List<Map.Entry<String, Long>> byScore(TreeMap<String, Long> log) {
        List<Map.Entry<String, Long>> entries = new ArrayList<>(log.entrySet());
        entries.sort(Map.Entry.<String, Long>comparingByValue().thenComparing(Map.Entry.comparingByKey()));
        return entries;
    }

    private List<Long> slidingLog(List<String> keyList, List<String> args, long nowUs) {
        long now = Math.floorDiv(nowUs, 1000);
        int n = keyList.size();
        List<TreeMap<String, Long>> logs = new ArrayList<>(n);
        long allowed = 1;
        long retry = 0;
        for (int i = 0; i < n; i++) {
            long limit = arg(args, 3 * i), window = arg(args, 3 * i + 1), cost = arg(args, 3 * i + 2);
            TreeMap<String, Long> log = log(keyList.get(i), now);
            log.values().removeIf(score -> score <= now - window);
            logs.add(log);
            long count = log.size();
            if (count + cost > limit) {
                allowed = 0;
                long oldest = byScore(log).get((int) (count + cost - limit - 1)).getValue();
                retry = Math.max(retry, Math.max(1, oldest + window - now));
            }
        }
        List<Long> reply = new ArrayList<>(List.of(allowed, retry, retry));
        for (int i = 0; i < n; i++) {
            long limit = arg(args, 3 * i), window = arg(args, 3 * i + 1), cost = arg(args, 3 * i + 2);
            TreeMap<String, Long> log = logs.get(i);
            long expiresAt = keys.containsKey(keyList.get(i)) ? keys.get(keyList.get(i)).expiresAtMs() : Long.MAX_VALUE;
            if (allowed == 1) {
                for (int j = 1; j <= cost; j++) {
                    String member = nowUs + ":" + (i + 1) + ":" + j;
                    while (log.containsKey(member)) {
                        member = member + "+";
                    }
                    log.put(member, now);
                }
                expiresAt = now + window;
            }
            if (log.isEmpty()) {
                keys.remove(keyList.get(i));
            } else {
                put(keyList.get(i), log, expiresAt);
            }
            reply.add(limit - log.size());
            reply.add(log.isEmpty() ? 0 : Math.max(0, byScore(log).get(log.size() - 1).getValue() + window - now));
        }
        reply.add(nowUs);
        return reply;
    }

    private List<Long> fixedWindow(List<String> keyList, List<String> args, long now) {
        int n = keyList.size();
        long[] counts = new long[n];
        long allowed = 1;
        long retry = 0;
        for (int i = 0; i < n; i++) {
            long limit = arg(args, 4 * i), window = arg(args, 4 * i + 1);
            long cost = arg(args, 4 * i + 2), start = arg(args, 4 * i + 3);
            if (now - Math.floorMod(now, window) != start) {
                return List.of(-1L, now);
            }
            Long count = get(keyList.get(i), Long.class, now);
            counts[i] = count == null ? 0 : count;
            if (counts[i] + cost > limit) {
                allowed = 0;
                retry = Math.max(retry, start + window - now);
            }
        }
        List<Long> reply = new ArrayList<>(List.of(allowed, retry, retry));
        for (int i = 0; i < n; i++) {
            long limit = arg(args, 4 * i), window = arg(args, 4 * i + 1);
            long cost = arg(args, 4 * i + 2), start = arg(args, 4 * i + 3);
            long count = counts[i];
            if (allowed == 1) {
                count += cost;
                put(keyList.get(i), count, start + window + 3_600_000);
            }
            reply.add(limit - count);
            reply.add(start + window - now);
        }
        return reply;
    }

    private List<Long> refund(List<String> keyList, List<String> args, long now) {
        long changed = 0;
        for (int i = 0; i < keyList.size(); i++) {
            String key = keyList.get(i);
            String kind = args.get(3 * i);
            long amount = arg(args, 3 * i + 1);
            String extra = args.get(3 * i + 2);
            Value value = live(key, now);
            if (value == null) {
                continue;
            }
            switch (kind) {
                case "bucket" -> {
                    Bucket b = (Bucket) value.data();
                    keys.put(key, new Value(new Bucket(Math.min(Long.parseLong(extra), b.tokensMilli() + amount), b.tsMs(), b.qUs()), value.expiresAtMs()));
                    changed++;
                }
                case "window" -> {
                    long count = (Long) value.data();
                    if (count > 0) {
                        keys.put(key, new Value(count - Math.min(count, amount), value.expiresAtMs()));
                        changed++;
                    }
                }
                case "log" -> {
                    @SuppressWarnings("unchecked")
                    TreeMap<String, Long> log = (TreeMap<String, Long>) value.data();
                    for (int j = 1; j <= amount; j++) {
                        if (log.remove(extra + ":" + j) != null) {
                            changed++;
                        }
                    }
                    if (log.isEmpty()) {
                        keys.remove(key);
                    }
                }
                default -> throw new StoreException(StoreException.Kind.UNAVAILABLE, "script_error", "refund: unknown kind " + kind + " (user_script)", null);
            }
        }
        return List.of(changed);
    }

    private List<Long> heartbeat(List<String> keyList, List<String> args, long now) {
        long ttl = Long.parseLong(args.get(1));
        TreeMap<String, Long> pods = log(keyList.get(0), now);
        pods.put(args.get(0), now);
        pods.values().removeIf(score -> score <= now - ttl);
        put(keyList.get(0), pods, now + ttl * 10);
        return List.of((long) pods.size());
    }

    private Value live(String key, long now) {
        Value value = keys.get(key);
        if (value != null && value.expiresAtMs() <= now) {
            keys.remove(key);
            return null;
        }
        return value;
    }

    private <T> T get(String key, Class<T> type, long now) {
        Value value = live(key, now);
        return value == null ? null : type.cast(value.data());
    }

    private void put(String key, Object data, long expiresAtMs) {
        keys.put(key, new Value(data, expiresAtMs));
    }

    /** Redis Cluster refuses a script over keys of two slots (CROSSSLOT); so does this store, by hash tag. */
    private static void requireOneSlot(List<String> keyList) {
        String tag = null;
        for (String key : keyList) {
            int open = key.indexOf('{');
            int close = open < 0 ? -1 : key.indexOf('}', open + 1);
            String own = close > open + 1 ? key.substring(open + 1, close) : key;
            if (tag != null && !tag.equals(own)) {
                throw new StoreException(StoreException.Kind.UNAVAILABLE, "script_error",
                        "CROSSSLOT Keys in request don't hash to the same slot", null);
            }
            tag = own;
        }
    }

    private static long arg(List<String> args, int index) {
        return Long.parseLong(args.get(index));
    }

    private static long ceilDiv(long dividend, long divisor) {
        return BucketLevel.ceilDiv(dividend, divisor);
    }
}
