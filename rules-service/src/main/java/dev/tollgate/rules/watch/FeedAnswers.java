package dev.tollgate.rules.watch;

import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.RuleChanges;
import dev.tollgate.common.rule.RuleSnapshot;
import dev.tollgate.rules.metrics.RulesMetrics;
import dev.tollgate.rules.problem.AnswerTooLargeException;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

import java.io.ByteArrayOutputStream;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The watch answers, built once per revision and question and shared by every pod that asks it: after a
 * change, the pods of a region all hold the same revision, so one delta read and one serialisation serve
 * them all, however many there are. An answer is the JSON bytes, capped at
 * {@code tollgate.watch.max-answer-size} while they are written.
 *
 * <p>Three questions: an older pod (no region) gets the bare snapshot of every region, as before the
 * delta feed; a pod naming its region gets {@link RuleChanges}, the delta since its revision or, when it
 * holds none or one the feed no longer reaches, the region's snapshot.
 */
@Component
class FeedAnswers {

    /** @param since null for a snapshot; {@code region} null for an older pod's bare snapshot */
    record Question(Long since, String region) {

        static Question of(Long since, String region) {
            return region == null ? new Question(null, null) : new Question(since, region);
        }

        String kind() {
            return region == null ? "legacy" : since == null ? "snapshot" : "delta";
        }
    }

    /**
     * @param kind      delta, snapshot, or legacy (an older pod's bare snapshot)
     * @param staleAt   when an override in a snapshot expires, after which the snapshot must be read again
     *                  (a snapshot carries active overrides only); null when none does, and for a delta,
     *                  which a pod trims by its own clock
     * @param refusal   set instead of a body when the answer is past the size cap
     */
    record Answer(long revision, String kind, byte[] body, Instant staleAt, AnswerTooLargeException refusal) {

        boolean servesAt(long revision, Instant now) {
            return this.revision >= revision && (staleAt == null || now.isBefore(staleAt));
        }
    }

    private final SnapshotReader reader;
    private final JsonMapper json;
    private final Clock clock;
    private final long maxBytes;
    private final RulesMetrics metrics;
    private final Map<Question, Answer> answers = new ConcurrentHashMap<>();
    private final Map<Question, Object> building = new ConcurrentHashMap<>();

    FeedAnswers(SnapshotReader reader, JsonMapper json, Clock clock, WatchProperties properties, RulesMetrics metrics) {
        this.reader = reader;
        this.json = json;
        this.clock = clock;
        this.maxBytes = properties.maxAnswerSize().toBytes();
        this.metrics = metrics;
    }

    /** The answer to {@code question} at {@code revision} or later: built at most once by all who ask at once. */
    Answer answer(Question question, long revision) {
        Answer answer = answers.get(question);
        if (answer != null && answer.servesAt(revision, clock.instant())) {
            return answer;
        }
        synchronized (building.computeIfAbsent(question, q -> new Object())) {
            answer = answers.get(question);
            if (answer == null || !answer.servesAt(revision, clock.instant())) {
                answer = build(question);
                answers.put(question, answer);
            }
            return answer;
        }
    }

    /** Drops the answers older than {@code revision}: nobody is sent one again. */
    void forgetBefore(long revision) {
        answers.values().removeIf(answer -> answer.revision() < revision);
        building.keySet().retainAll(answers.keySet());
    }

    private Answer build(Question question) {
        Instant now = clock.instant();
        if (question.region() == null) {
            RuleSnapshot snapshot = reader.read(null).activeAt(now);
            return written(snapshot.revision(), "legacy", snapshot, staleAt(snapshot.overrides(), now), "the snapshot of every region");
        }
        if (question.since() == null) {
            return snapshot(question.region(), reader.read(question.region()), now);
        }
        RuleChanges changes = reader.readSince(question.since(), question.region());
        if (changes.replacesAll()) {
            return snapshot(question.region(), changes.toSnapshot(), now);
        }
        Answer delta = written(changes.revision(), "delta", changes, null, "the delta");
        if (delta.refusal() == null) {
            return delta;
        }
        metrics.watchAnswerOverCap("delta");
        // past the cap a snapshot of the region is hardly larger, and the pod needs one or the other
        return answer(new Question(null, question.region()), changes.revision());
    }

    private Answer snapshot(String region, RuleSnapshot read, Instant now) {
        RuleSnapshot snapshot = read.activeAt(now);
        return written(snapshot.revision(), "snapshot", RuleChanges.snapshot(snapshot, region), staleAt(snapshot.overrides(), now),
                "the snapshot of region " + region);
    }

    private Answer written(long revision, String kind, Object value, Instant staleAt, String what) {
        Capped out = new Capped(maxBytes);
        try {
            json.writeValue(out, value);
        } catch (RuntimeException e) {
            // the cap's own exception, as thrown or wrapped by Jackson
            if (out.over) {
                if (!"delta".equals(kind)) {
                    metrics.watchAnswerOverCap(kind);
                }
                return new Answer(revision, kind, null, null, new AnswerTooLargeException(what + " at revision " + revision, maxBytes));
            }
            throw e;
        }
        return new Answer(revision, kind, out.toByteArray(), staleAt, null);
    }

    private static Instant staleAt(List<AccountOverride> overrides, Instant now) {
        Instant first = null;
        for (AccountOverride override : overrides) {
            Instant expires = override.expiresAt();
            if (expires != null && expires.isAfter(now) && (first == null || expires.isBefore(first))) {
                first = expires;
            }
        }
        return first;
    }

    /** Stops the writer at the cap, so an answer too large is never held whole. */
    private static final class Capped extends ByteArrayOutputStream {

        private final long max;
        private boolean over;

        Capped(long max) {
            super(8192);
            this.max = max;
        }

        @Override
        public synchronized void write(byte[] bytes, int offset, int length) {
            check(length);
            super.write(bytes, offset, length);
        }

        @Override
        public synchronized void write(int b) {
            check(1);
            super.write(b);
        }

        private void check(int more) {
            if (count + (long) more > max) {
                over = true;
                throw new UncheckedCap();
            }
        }
    }

    /** Unchecked, as ByteArrayOutputStream's writes are; whether Jackson wraps it or not, {@link Capped#over} says why. */
    private static final class UncheckedCap extends RuntimeException {

        UncheckedCap() {
            super("answer past the cap", null, false, false);
        }
    }
}
