package dev.tollgate.store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The counter store in one process, for tests of code that embeds the engine: the same scripts' semantics
 * (token buckets with leases and the deny queue, sliding logs and fixed windows spent together, refund, peek, pod heartbeat,
 * count after) in Java,
 * atomic per call as Redis runs a script, on an injected clock. {@code CounterStoreContract} runs one suite
 * against this and against a real Redis Cluster, so the two cannot drift apart; production never uses it.
 */
public final class InMemoryCounterStore implements CounterStore {

    private static final long MAX_HOLD_MS = 1000;

    /** A bucket's hash: its level, refill stamp and deny queue's tail, and its askers (pod id → ms of its last lease ask). */
    private record Bucket(long tokensMilli, long tsMs, long qUs, Map<String, Long> askers) {
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
                case "spend" -> spend(keyList, args, nowUs);
                case "refund" -> refund(keyList, args, nowUs / 1000);
                case "pod_heartbeat" -> heartbeat(keyList, args, nowUs / 1000);
                case "peek" -> peek(keyList, args, nowUs / 1000);
                case "count_after" -> countAfter(keyList, args, nowUs / 1000);
                case "hot_keys_publish" -> {
                    put(keyList.get(0), args.get(0), nowUs / 1000 + Long.parseLong(args.get(1)));
                    yield List.of(1L);
                }
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

    /** {@code spend.lua}: every limit of one key, whatever its algorithm, checked before any is written. */
    private List<Long> spend(List<String> keyList, List<String> args, long nowUs) {
        long now = Math.floorDiv(nowUs, 1000);
        long want = arg(args, 0);
        long pods = arg(args, 1);
        int n = keyList.size();
        String asker = args.size() > 3 + 5 * n ? args.get(2 + 5 * n) : "";
        long askerTtl = args.size() > 3 + 5 * n ? arg(args, 3 + 5 * n) : 0;
        boolean counts = want > 1 && !asker.isEmpty() && askerTtl > 0;
        List<Map<String, Long>> askersOf = new ArrayList<>(n);
        String[] kind = new String[n];
        long[][] p = new long[n][];
        for (int i = 0; i < n; i++) {
            int a = 2 + 5 * i;
            kind[i] = args.get(a);
            p[i] = new long[] {arg(args, a + 1), arg(args, a + 2), arg(args, a + 3), arg(args, a + 4)};
            if (kind[i].equals("window")) {
                if (now - Math.floorMod(now, p[i][1]) != p[i][3]) {
                    return List.of(-1L, now);
                }
            } else if (!kind[i].equals("bucket") && !kind[i].equals("log")) {
                throw new StoreException(StoreException.Kind.UNAVAILABLE, "script_error", "spend: unknown kind " + kind[i] + " (user_script)", null);
            }
        }
        long grant = want;
        for (int i = 0; i < n; i++) {
            if (!kind[i].equals("bucket")) {
                grant = Math.min(grant, 1);
            }
        }
        long retry = 0;
        long[] level = new long[n];
        long[] last = new long[n];
        long[] tail = new long[n];
        long[] count = new long[n];
        List<TreeMap<String, Long>> logs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            logs.add(null);
            askersOf.add(null);
            switch (kind[i]) {
                case "bucket" -> {
                    long refill = p[i][0], period = p[i][1], burst = p[i][2], cost = p[i][3];
                    Bucket s = get(keyList.get(i), Bucket.class, now);
                    BucketLevel refilled = s == null ? BucketLevel.at(now, null, null, refill, period, burst)
                            : BucketLevel.at(now, s.tokensMilli(), s.tsMs(), refill, period, burst);
                    level[i] = refilled.milli();
                    last[i] = refilled.tsMs();
                    tail[i] = s == null ? 0 : s.qUs();
                    Map<String, Long> askers = new HashMap<>(s == null ? Map.of() : s.askers());
                    long divisor = pods;
                    if (counts) {
                        askers.values().removeIf(lastAsk -> lastAsk <= now - askerTtl);
                        askers.remove(asker);
                        divisor = Math.min(pods, 1 + askers.size());
                        askers.put(asker, now);
                    }
                    askersOf.set(i, askers);
                    long whole = Math.floorDiv(level[i], 1000);
                    long need = Math.max(cost, 1);
                    if (whole < need) {
                        grant = 0;
                    } else if (grant > 0) {
                        grant = Math.min(grant, Math.max(1, Math.floorDiv(whole, 2 * divisor * need)));
                    }
                }
                case "log" -> {
                    long limit = p[i][0], window = p[i][1], cost = p[i][2];
                    TreeMap<String, Long> log = log(keyList.get(i), now);
                    log.values().removeIf(score -> score <= now - window);
                    logs.set(i, log);
                    count[i] = log.size();
                    long need = Math.max(cost, 1);
                    if (count[i] + need > limit) {
                        grant = 0;
                        long oldest = byScore(log).get((int) (count[i] + need - limit - 1)).getValue();
                        retry = Math.max(retry, Math.max(1, oldest + window - now));
                    }
                }
                default -> {
                    long limit = p[i][0], window = p[i][1], cost = p[i][2], start = p[i][3];
                    Long stored = get(keyList.get(i), Long.class, now);
                    count[i] = stored == null ? 0 : stored;
                    if (count[i] + Math.max(cost, 1) > limit) {
                        grant = 0;
                        retry = Math.max(retry, start + window - now);
                    }
                }
            }
        }
        long hold = retry;
        List<Long> reply = new ArrayList<>(List.of(grant, 0L, 0L));
        for (int i = 0; i < n; i++) {
            String key = keyList.get(i);
            switch (kind[i]) {
                case "bucket" -> {
                    long refill = p[i][0], period = p[i][1], burst = p[i][2], cost = p[i][3];
                    long l = level[i] - grant * cost * 1000;
                    long ts = last[i];
                    long q = tail[i];
                    if (cost == 0) {
                        if (grant == 0) {
                            retry = Math.max(retry, Math.max(1, ts + ceilDiv((1000 - l) * period, refill) - now));
                        }
                    } else if (l < cost * 1000) {
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
                    put(key, new Bucket(l, ts, q, Map.copyOf(askersOf.get(i))), now + bucketTtl(l, refill, period, burst));
                    reply.add(Math.floorDiv(l, 1000));
                    reply.add(Math.max(0, ts + ceilDiv((burst - l) * period, refill) - now));
                }
                case "log" -> {
                    long limit = p[i][0], window = p[i][1], cost = p[i][2];
                    TreeMap<String, Long> log = logs.get(i);
                    long expiresAt = keys.containsKey(key) ? keys.get(key).expiresAtMs() : Long.MAX_VALUE;
                    if (grant > 0 && cost > 0) {
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
                        keys.remove(key);
                    } else {
                        put(key, log, expiresAt);
                    }
                    reply.add(limit - log.size());
                    reply.add(log.isEmpty() ? 0 : Math.max(0, byScore(log).get(log.size() - 1).getValue() + window - now));
                }
                default -> {
                    long limit = p[i][0], window = p[i][1], cost = p[i][2], start = p[i][3];
                    long c = count[i];
                    if (grant > 0 && cost > 0) {
                        c += cost;
                        put(key, c, start + window + Math.min(window, 3_600_000));
                    }
                    reply.add(limit - c);
                    reply.add(start + window - now);
                }
            }
        }
        reply.set(1, retry);
        reply.set(2, hold);
        reply.add(nowUs);
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
                    keys.put(key, new Value(new Bucket(Math.min(Long.parseLong(extra), b.tokensMilli() + amount), b.tsMs(), b.qUs(), b.askers()), value.expiresAtMs()));
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

    /** {@code peek.lua}: each limit's stored state as the spend would read it, nothing written. */
    private List<Long> peek(List<String> keyList, List<String> args, long now) {
        List<Long> reply = new ArrayList<>();
        reply.add(now);
        for (int i = 0; i < keyList.size(); i++) {
            int a = 2 + 5 * i;
            String key = keyList.get(i);
            switch (args.get(a)) {
                case "bucket" -> {
                    Bucket bucket = get(key, Bucket.class, now);
                    reply.addAll(List.of(bucket == null ? 0 : bucket.tokensMilli(), bucket == null ? 0 : bucket.tsMs(), bucket == null ? 0L : 1L));
                }
                case "log" -> {
                    long window = arg(args, a + 2);
                    TreeMap<String, Long> log = log(key, now);
                    long inside = log.values().stream().filter(score -> score > now - window).count();
                    long newest = log.values().stream().mapToLong(Long::longValue).max().orElse(-1);
                    reply.addAll(List.of(inside, newest, 0L));
                }
                case "window" -> {
                    long window = arg(args, a + 2);
                    long start = arg(args, a + 4);
                    Long count = get(key, Long.class, now);
                    reply.addAll(List.of(count == null ? 0 : count, start, now - Math.floorMod(now, window) == start ? 1L : 0L));
                }
                default -> throw new StoreException(StoreException.Kind.UNAVAILABLE, "script_error", "peek: unknown kind " + args.get(a) + " (user_script)", null);
            }
        }
        return reply;
    }

    /**
     * {@code count_after.lua}: a pod's admitted counts added to many keys' buckets and windows, and which are now over;
     * a call whose marker is still there has run before: it counts nothing and answers that run's verdicts.
     */
    private List<Long> countAfter(List<String> keyList, List<String> args, long now) {
        int n = Integer.parseInt(args.get(0));
        long ttl = arg(args, 1);
        String marker = keyList.get(1);
        List<Long> reply = new ArrayList<>();
        reply.add(now);
        String seen = get(marker, String.class, now);
        if (seen != null) {
            reply.add(1L);
            for (String verdict : seen.isEmpty() ? new String[0] : seen.split(",")) {
                String[] parts = verdict.split(":");
                long wait = Long.parseLong(parts[1]) - now;
                if (wait > 0) {
                    reply.add(Long.parseLong(parts[0]));
                    reply.add(wait);
                }
            }
            return reply;
        }
        put(marker, "", now + ttl);
        reply.add(0L);
        List<String> verdicts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int a = 2 + 7 * i;
            String key = args.get(a + 1);
            long p1 = arg(args, a + 2), p2 = arg(args, a + 3), p3 = arg(args, a + 4);
            long units = arg(args, a + 5), need = arg(args, a + 6);
            switch (args.get(a)) {
                case "bucket" -> {
                    long refill = p1, period = p2, burst = p3;
                    Bucket stored = get(key, Bucket.class, now);
                    BucketLevel level = stored == null ? BucketLevel.at(now, null, null, refill, period, burst)
                            : BucketLevel.at(now, stored.tokensMilli(), stored.tsMs(), refill, period, burst);
                    // the whole debt is kept, as count_after.lua keeps it
                    long l = level.milli() - units * 1000;
                    put(key, new Bucket(l, level.tsMs(), stored == null ? 0 : stored.qUs(), stored == null ? Map.of() : stored.askers()),
                            now + bucketTtl(l, refill, period, burst));
                    if (l < need * 1000) {
                        long wait = Math.max(1, level.tsMs() + ceilDiv((need * 1000 - l) * period, refill) - now);
                        reply.add((long) i + 1);
                        reply.add(wait);
                        verdicts.add((i + 1) + ":" + (now + wait));
                    }
                }
                case "window" -> {
                    long limit = p1, window = p2, start = p3;
                    Long stored = get(key, Long.class, now);
                    long count = stored == null ? 0 : stored;
                    if (units > 0) {
                        count += units;
                        put(key, count, start + window + Math.min(window, 3_600_000));
                    }
                    if (count + need > limit && start + window > now) {
                        reply.add((long) i + 1);
                        reply.add(start + window - now);
                        verdicts.add((i + 1) + ":" + (start + window));
                    }
                }
                default -> throw new StoreException(StoreException.Kind.UNAVAILABLE, "script_error",
                        "count_after: unknown kind " + args.get(a) + " (user_script)", null);
            }
        }
        if (!verdicts.isEmpty()) {
            put(marker, String.join(",", verdicts), now + ttl);
        }
        return reply;
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

    /** How long the scripts keep a bucket at level {@code l}: twice the fill from empty, and past a debt until it is paid. */
    private static long bucketTtl(long l, long refill, long period, long burst) {
        return ceilDiv((2 * burst - Math.min(l, 0)) * period, refill);
    }

    private static long ceilDiv(long dividend, long divisor) {
        return BucketLevel.ceilDiv(dividend, divisor);
    }
}
