package dev.tollgate.limiter.after;

import dev.tollgate.limiter.metrics.LimiterMetrics;
import dev.tollgate.store.CounterStore;
import dev.tollgate.store.StoreException;
import dev.tollgate.store.key.RedisKeys;
import dev.tollgate.store.script.CountAfterCall;
import dev.tollgate.store.script.ScriptCall;
import dev.tollgate.store.script.Spend;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * "Admit now, count after" on one pod. A check of a count-after key group asks {@link #admit}: the pod denies when
 * the store last said the key is over (until the time it said), admits and counts when the key's allowance until the
 * pod's next flush answer holds the request, and hands the group to the inline check otherwise (so a burst of a key
 * that is not over still passes, exactly), unless the store said the key was over at its last answer: then the
 * pod denies until the next. No store call is made on that path. Every flush interval {@link #flush} sends the
 * counts, one {@code count_after.lua} call per shard, and keeps the over flags the store answers.
 *
 * <p>The bound: between two answers of its flushes a pod admits a key on its own at most its allowance, the rule's
 * rate over one flush interval ({@link CountAfterSettings#perFlush}). When the key goes over in the store, a pod has
 * admitted at most one allowance the store had not yet counted and one more while the answer was on its way, so a key
 * seen by N pods runs over its limit by at most {@code 2 × allowance × N} ({@link CountAfterSettings#overshootBoundPerPod}).
 * That holds while the shard answers flush calls within their timeout: a call that fails restarts the allowance
 * without the store's word (the fail-open mode below), so each failed call may let one more allowance through.
 *
 * <p>No count is lost while the store answers. Each flush call has an id (this engine's random prefix and a
 * sequence), and the script applies a call of one id once: a call that fails or times out (a timed-out call may have
 * counted) is resent as it was built, at each flush, until the store answers it; a resend of a call that had counted
 * counts nothing and answers its first run's verdicts ({@code tollgate.count.after.resent}). Flush calls have their own
 * timeout ({@link CountAfterSettings#flushTimeout}), longer than the check's, and a shard with a call out is skipped
 * by the next flush, so one slow shard holds up no other's. Only a call still failing once its counts are
 * {@link CountAfterSettings#resendFor} old is dropped (and counted in {@code tollgate.count.after.dropped}).
 *
 * <p>The fail modes. The allowance starts over at every answer, failed ones included, so a fail-open rule keeps
 * admitting about its rate per pod while its shard is gone (an allowance per failed call, then inline, to the rule's
 * fallback), and those counts reach the store when it is back within their resend age. A fail-closed rule denies
 * once its shard has left a call unanswered for {@link CountAfterSettings#failClosedAfter} ({@link Admission.StoreGone}),
 * however long the flush timeout, and a probe rides each flush until the shard answers again.
 */
public final class CountAfter implements AutoCloseable {

    /** One thread for every engine of the JVM (a bench fleet builds many): a flush only builds calls and sends them. */
    private static final class Timer {
        static final ScheduledExecutorService FLUSHES = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "tollgate-count-after");
            thread.setDaemon(true);
            return thread;
        });
    }

    private record Counted(String ruleId, String key) {
    }

    /** A (rule, key)'s counts on this pod; read and written only inside the map's compute for its key. */
    private static final class Tally {
        Spend spend;
        /** Units admitted and not yet sent. */
        long pending;
        /** Units admitted since the last answer of a flush that carried this key: what the allowance bounds. */
        long sinceAnswer;
    }

    /**
     * A shard's flush health: since when (nanoTime) it has not answered a call (0: its last call was answered), its
     * calls out now, and a key to probe it with once its calls fail.
     */
    private static final class Shard {
        volatile long unansweredSinceNanos;
        final AtomicInteger inFlight = new AtomicInteger();
        volatile CountAfterCall.Entry probe;
    }

    private record Sent(Counted counted, CountAfterCall.Entry entry) {
    }

    /**
     * A flush call as built, sent again as it is until the store answers it; {@code units}: what it counts. Sent only
     * by the one flush building at a time, so {@code attempts} needs no lock.
     */
    private static final class Call {
        final List<Sent> sent;
        final ScriptCall script;
        final long firstSentNanos;
        final long units;
        int attempts;

        Call(List<Sent> sent, ScriptCall script, long firstSentNanos, long units) {
            this.sent = sent;
            this.script = script;
            this.firstSentNanos = firstSentNanos;
            this.units = units;
        }

        /** The key that routes the call (its first entry's), by which a resend finds the shard that owns it now. */
        String routingKey() {
            return sent.get(0).entry().key();
        }
    }

    private final CounterStore store;
    private final CountAfterSettings settings;
    private final LongSupplier nanoTime;
    private final Clock clock;
    private final LimiterMetrics metrics;
    private final boolean scheduled;
    private final Map<Counted, Tally> tallies = new ConcurrentHashMap<>();
    private final AtomicInteger held = new AtomicInteger();
    /**
     * Until when (nanoTime) the store said a (rule, key) is over, kept past that time until a flush answers the key is
     * not over (a key over lately spends only its allowance, never the inline check); at most maxPendingKeys of them.
     */
    private final Map<Counted, Long> overUntil = new ConcurrentHashMap<>();
    private final Map<String, Shard> shards = new ConcurrentHashMap<>();
    /** Failed calls to send again, oldest first, and the entries they hold (at most maxPendingKeys). */
    private final Queue<Call> resends = new ConcurrentLinkedQueue<>();
    private final AtomicInteger resending = new AtomicInteger();
    /** Call ids: this engine's random prefix and a sequence, so that no two engines' calls, restarted or not, share one. */
    private final String callPrefix = Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    private final AtomicLong calls = new AtomicLong();
    private final AtomicBoolean flushing = new AtomicBoolean();
    private final AtomicBoolean started = new AtomicBoolean();
    private volatile ScheduledFuture<?> task;

    /**
     * @param scheduled whether the pod flushes on its own every interval (from its first count-after check); off,
     *                  only {@link #flush} sends (tests drive time themselves)
     */
    public CountAfter(CounterStore store, CountAfterSettings settings, LongSupplier nanoTime, Clock clock, LimiterMetrics metrics,
                      boolean scheduled) {
        this.store = store;
        this.settings = settings;
        this.nanoTime = nanoTime;
        this.clock = clock;
        this.metrics = metrics;
        this.scheduled = scheduled;
    }

    public CountAfterSettings settings() {
        return settings;
    }

    /**
     * The pod's answer for one request on {@code key} under every limit of {@code spends} (all count after): counted
     * in all of them, or in none.
     *
     * @param failsClosed whether a limit of the group fails closed, so that a gone shard denies
     */
    public Admission admit(String key, List<Spend> spends, boolean failsClosed) {
        startFlushing();
        long now = nanoTime.getAsLong();
        Optional<Admission> denied = heldBack(key, spends, failsClosed, now);
        if (denied.isPresent()) {
            return denied.get();
        }
        long left = Long.MAX_VALUE;
        for (int i = 0; i < spends.size(); i++) {
            Spend spend = spends.get(i);
            long allowance = settings.perFlush(spend.tokensPerSecond(), spend.cost());
            long[] outcome = {0};
            tallies.compute(new Counted(spend.rule().id(), key), (counted, tally) -> {
                if (tally == null) {
                    if (held.get() >= settings.maxPendingKeys()) {
                        outcome[0] = -1;
                        return null;
                    }
                    held.incrementAndGet();
                    tally = new Tally();
                }
                if (tally.sinceAnswer + spend.cost() > allowance) {
                    outcome[0] = -2;
                    return tally;
                }
                tally.spend = spend;
                tally.pending += spend.cost();
                tally.sinceAnswer += spend.cost();
                outcome[0] = allowance - tally.sinceAnswer;
                return tally;
            });
            if (outcome[0] < 0) {
                giveBack(key, spends.subList(0, i));
                if (outcome[0] == -2 && overUntil.containsKey(new Counted(spend.rule().id(), key))) {
                    // the store's last answer for this key was "over" (its wait is past, so it paid for one request
                    // again): a key that keeps spending its allowance is a flood, and the next flush answer decides,
                    // rather than a store call per request until then
                    return new Admission.Over(spend.rule().id(), settings.flushInterval().toMillis());
                }
                return new Admission.Inline(outcome[0] == -1 ? Admission.Reason.PENDING_FULL : Admission.Reason.ALLOWANCE_SPENT);
            }
            left = Math.min(left, outcome[0]);
        }
        return new Admission.Admitted(left == Long.MAX_VALUE ? 0 : left);
    }

    /**
     * What {@link #admit} would answer now, counting nothing and starting no flushes: explain's view of the stage.
     * {@link Admission.Admitted#left} is what would be left after this request.
     */
    public Admission look(String key, List<Spend> spends, boolean failsClosed) {
        Optional<Admission> denied = heldBack(key, spends, failsClosed, nanoTime.getAsLong());
        if (denied.isPresent()) {
            return denied.get();
        }
        long left = Long.MAX_VALUE;
        for (Spend spend : spends) {
            Counted counted = new Counted(spend.rule().id(), key);
            long[] since = {-1};
            tallies.computeIfPresent(counted, (k, tally) -> {
                since[0] = tally.sinceAnswer;
                return tally;
            });
            if (since[0] < 0 && held.get() >= settings.maxPendingKeys()) {
                return new Admission.Inline(Admission.Reason.PENDING_FULL);
            }
            long allowance = settings.perFlush(spend.tokensPerSecond(), spend.cost());
            long after = Math.max(0, since[0]) + spend.cost();
            if (after > allowance) {
                return overUntil.containsKey(counted) ? new Admission.Over(spend.rule().id(), settings.flushInterval().toMillis())
                        : new Admission.Inline(Admission.Reason.ALLOWANCE_SPENT);
            }
            left = Math.min(left, allowance - after);
        }
        return new Admission.Admitted(left == Long.MAX_VALUE ? 0 : left);
    }

    /** The store's over flag for a limit of the group, or a fail-closed group's shard gone: denied before any count. */
    private Optional<Admission> heldBack(String key, List<Spend> spends, boolean failsClosed, long now) {
        Admission.Over over = null;
        for (Spend spend : spends) {
            Long until = overUntil.get(new Counted(spend.rule().id(), key));
            if (until != null) {
                long left = until - now;
                if (left > 0 && (over == null || left > TimeUnit.MILLISECONDS.toNanos(over.retryMs()))) {
                    over = new Admission.Over(spend.rule().id(), Math.max(1, TimeUnit.NANOSECONDS.toMillis(left + 999_999)));
                }
            }
        }
        if (over != null) {
            return Optional.of(over);
        }
        if (failsClosed) {
            String shard = shardOrGone(key);
            Shard state = shard == null ? null : shards.get(shard);
            if (shard == null || (state != null && state.unansweredSinceNanos != 0
                    && now - state.unansweredSinceNanos >= settings.failClosedAfter().toNanos())) {
                return Optional.of(new Admission.StoreGone(shard == null ? "unknown" : shard));
            }
        }
        return Optional.empty();
    }

    /**
     * Takes back one request {@link #admit} counted (another limit of the check denied it). Counts a flush has
     * already sent stay counted: the key is then over-counted by that request, which only ever under-admits.
     */
    public void giveBack(String key, List<Spend> spends) {
        for (Spend spend : spends) {
            tallies.computeIfPresent(new Counted(spend.rule().id(), key), (counted, tally) -> {
                tally.pending = Math.max(0, tally.pending - spend.cost());
                tally.sinceAnswer = Math.max(0, tally.sinceAnswer - spend.cost());
                return tally;
            });
        }
    }

    /** (rule, key) counts the pod holds now: at most {@link CountAfterSettings#maxPendingKeys}. */
    public int held() {
        return held.get();
    }

    /**
     * Sends every pending count and every failed call due again, one call per shard (chunked at
     * {@link CountAfterSettings#maxKeysPerCall}), plus a probe to each failing shard that has nothing to send. A shard
     * with a call still out is left for a later flush (its counts stay pending), so one slow shard never holds up the
     * others'. Completes, never exceptionally, when every call this flush sent has been answered or has failed.
     */
    public CompletableFuture<Void> flush() {
        if (!flushing.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(null);
        }
        try {
            long sentAt = nanoTime.getAsLong();
            long nowMs = clock.millis();
            List<CompletableFuture<Void>> calls = new ArrayList<>();
            Set<String> sending = new HashSet<>();
            // the oldest counts first: calls that failed, resent as they were built, so that the store counts each once
            for (int left = resends.size(); left > 0; left--) {
                Call call = resends.poll();
                if (call == null) {
                    break;
                }
                String shard = shardOrGone(call.routingKey());
                if (sentAt - call.firstSentNanos > settings.resendFor().toNanos()) {
                    resending.addAndGet(-call.sent.size());
                    metrics.countAfterDropped(call.units);
                } else if (shard == null || busy(shard, sending)) {
                    resends.add(call);
                } else {
                    resending.addAndGet(-call.sent.size());
                    sending.add(shard);
                    calls.add(send(shard, call, sentAt));
                }
            }
            Map<String, List<Sent>> byShard = new HashMap<>();
            for (Counted counted : tallies.keySet()) {
                String shard = shardOrGone(counted.key());
                if (shard != null && busy(shard, sending)) {
                    continue;
                }
                CountAfterCall.Entry[] taken = {null};
                tallies.computeIfPresent(counted, (k, tally) -> {
                    if (tally.pending == 0 && tally.sinceAnswer == 0) {
                        held.decrementAndGet();
                        return null;
                    }
                    if (tally.pending > 0) {
                        taken[0] = new CountAfterCall.Entry(k.key(), tally.spend, tally.pending);
                        tally.pending = 0;
                    }
                    return tally;
                });
                if (taken[0] != null) {
                    if (shard == null) {
                        metrics.countAfterDropped(taken[0].units());
                        answered(List.of(new Sent(counted, taken[0])));
                    } else {
                        byShard.computeIfAbsent(shard, s -> new ArrayList<>()).add(new Sent(counted, taken[0]));
                    }
                }
            }
            for (Map.Entry<String, Shard> shard : shards.entrySet()) {
                CountAfterCall.Entry probe = shard.getValue().probe;
                if (shard.getValue().unansweredSinceNanos != 0 && probe != null && !byShard.containsKey(shard.getKey())
                        && !sending.contains(shard.getKey()) && !busy(shard.getKey(), sending)) {
                    byShard.put(shard.getKey(), List.of(new Sent(new Counted(probe.spend().rule().id(), probe.key()),
                            new CountAfterCall.Entry(probe.key(), probe.spend(), 0))));
                }
            }
            for (Map.Entry<String, List<Sent>> shard : byShard.entrySet()) {
                List<Sent> all = shard.getValue();
                for (int from = 0; from < all.size(); from += settings.maxKeysPerCall()) {
                    Call call = call(all.subList(from, Math.min(all.size(), from + settings.maxKeysPerCall())), sentAt, nowMs);
                    calls.add(call == null ? CompletableFuture.completedFuture(null) : send(shard.getKey(), call, sentAt));
                }
            }
            return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).handle((done, error) -> null);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(null);
        } finally {
            flushing.set(false);
        }
    }

    /** Whether the shard has a call out from an earlier flush (not one this flush is sending). */
    private boolean busy(String shard, Set<String> sending) {
        Shard state = shards.get(shard);
        return state != null && state.inFlight.get() > 0 && !sending.contains(shard);
    }

    /** A new call, with its own id; null (its counts dropped) when it cannot be built. */
    private Call call(List<Sent> sent, long sentAt, long nowMs) {
        List<CountAfterCall.Entry> entries = new ArrayList<>(sent.size());
        long units = 0;
        for (Sent one : sent) {
            entries.add(one.entry());
            units += one.entry().units();
        }
        try {
            ScriptCall script = CountAfterCall.of(entries, nowMs, callPrefix + ":" + Long.toString(calls.incrementAndGet(), 36),
                    settings.markerTtl().toMillis());
            return new Call(List.copyOf(sent), script, sentAt, units);
        } catch (RuntimeException e) {
            metrics.countAfterDropped(units);
            answered(sent);
            return null;
        }
    }

    private CompletableFuture<Void> send(String shardName, Call call, long sentAt) {
        Shard shard = shards.computeIfAbsent(shardName, s -> new Shard());
        shard.inFlight.incrementAndGet();
        if (shard.unansweredSinceNanos == 0) {
            // since the first call the shard has not answered: 0 is "answering", so a clock at 0 reads as 1
            shard.unansweredSinceNanos = sentAt == 0 ? 1 : sentAt;
        }
        boolean resent = call.attempts++ > 0;
        long started = System.nanoTime();
        CompletableFuture<List<Long>> reply;
        try {
            ScriptCall script = call.script;
            reply = store.run(script.script(), script.keys(), script.args(), settings.flushTimeout());
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        return reply.handle((answer, error) -> {
            metrics.storeCall(CountAfterCall.COUNT_AFTER.name(), error == null ? "ok" : reason(error))
                    .record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
            List<Sent> sent = call.sent;
            if (error == null) {
                shard.unansweredSinceNanos = 0;
                long now = nanoTime.getAsLong();
                CountAfterCall.Reply parsed = CountAfterCall.Reply.parse(answer);
                if (resent) {
                    metrics.countAfterResent(parsed.replayed());
                }
                List<CountAfterCall.Reply.Over> overs = parsed.over();
                boolean[] isOver = new boolean[sent.size()];
                for (CountAfterCall.Reply.Over over : overs) {
                    isOver[over.entry()] = true;
                }
                for (int i = 0; i < isOver.length; i++) {
                    if (!isOver[i]) {
                        overUntil.remove(sent.get(i).counted());
                    }
                }
                for (CountAfterCall.Reply.Over over : overs) {
                    Counted counted = sent.get(over.entry()).counted();
                    // bounded like the tallies: past the bound a new key's flag is not kept, and the key, once its
                    // allowance is spent, is checked inline, where the store denies it
                    if (overUntil.size() < settings.maxPendingKeys() || overUntil.containsKey(counted)) {
                        overUntil.put(counted, now + TimeUnit.MILLISECONDS.toNanos(over.waitMs()));
                    }
                }
            } else {
                shard.probe = sent.get(0).entry();
                if (call.units > 0) {
                    // it may have counted (a timeout) or not: only a resend with its id can tell the store to count once.
                    // Bounded like the tallies: past the bound a failed call's counts are dropped at once
                    if (resending.addAndGet(sent.size()) <= settings.maxPendingKeys()) {
                        resends.add(call);
                    } else {
                        resending.addAndGet(-sent.size());
                        metrics.countAfterDropped(call.units);
                    }
                }
            }
            answered(sent);
            shard.inFlight.decrementAndGet();
            return null;
        });
    }

    /** A flush carrying these keys was answered (or failed): their allowances start over, and idle ones leave. */
    private void answered(List<Sent> sent) {
        for (Sent one : sent) {
            tallies.computeIfPresent(one.counted(), (k, tally) -> {
                tally.sinceAnswer = 0;
                if (tally.pending == 0) {
                    held.decrementAndGet();
                    return null;
                }
                return tally;
            });
        }
        long now = nanoTime.getAsLong();
        if (overUntil.size() >= settings.maxPendingKeys()) {
            // flags outlive their tallies: past ones go, making room for new ones
            overUntil.values().removeIf(until -> until - now <= 0);
        }
    }

    /** The key's shard, or null when the store cannot say (not connected, no slot map): counted as gone. */
    private String shardOrGone(String key) {
        try {
            return store.shardOf(RedisKeys.hashTag(key));
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static String reason(Throwable error) {
        Throwable cause = error;
        while (!(cause instanceof StoreException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause instanceof StoreException store ? store.reason() : "failed";
    }

    private void startFlushing() {
        if (scheduled && !started.get() && started.compareAndSet(false, true)) {
            long interval = settings.flushInterval().toMillis();
            task = Timer.FLUSHES.scheduleAtFixedRate(this::flush, interval, interval, TimeUnit.MILLISECONDS);
        }
    }

    /** Stops the pod's own flushes; counts still pending or to resend are dropped with the pod. */
    @Override
    public void close() {
        ScheduledFuture<?> running = task;
        if (running != null) {
            running.cancel(false);
        }
    }
}
