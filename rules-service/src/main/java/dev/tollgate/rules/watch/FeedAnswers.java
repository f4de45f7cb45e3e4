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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The watch answers, built once per revision and question and shared by every pod that asks it: after a
 * change, the pods of a region all hold the same revision, so one delta read and one serialisation serve
 * them all, however many there are. An answer is the JSON bytes, capped at
 * {@code tollgate.watch.max-answer-size} while they are written.
 *
 * <p>Three questions: an older pod (no region) gets the bare snapshot of every region, as before the
 * delta feed; a pod naming its region gets {@link RuleChanges}, the delta since its revision or, when it
 * holds none or one the feed has no delta from (older than the feed keeps, or ahead of the store), the
 * region's snapshot. Every {@code since} without a delta is the region's snapshot question, built and held
 * once; and the answers held are bounded, so no {@code since} or region a caller chooses grows them.
 */
@Component
class FeedAnswers {

    /**
     * The answers held at once. Real pods ask few questions at a revision: per region its snapshot and the
     * deltas from the one or two revisions its pods hold, and the older pods' snapshot, so this covers a
     * handful of regions. Past it the question asked least recently goes, which costs a rebuild if it is
     * asked again, never a wrong answer; each answer may be up to tollgate.watch.max-answer-size.
     */
    private static final int HELD = 16;

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
    /** In access order, guarded by itself: a lookup moves its question to the back, so the eldest is the least asked. */
    private final Map<Question, Answer> answers = new LinkedHashMap<>(HELD * 2, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Question, Answer> eldest) {
            return size() > HELD;
        }
    };
    /** The builds under way, one per question, each gone when done: bounded by the requests in flight. */
    private final Map<Question, CompletableFuture<Answer>> building = new ConcurrentHashMap<>();

    FeedAnswers(SnapshotReader reader, JsonMapper json, Clock clock, WatchProperties properties, RulesMetrics metrics) {
        this.reader = reader;
        this.json = json;
        this.clock = clock;
        this.maxBytes = properties.maxAnswerSize().toBytes();
        this.metrics = metrics;
        metrics.watchAnswersHeld(this::heldCount);
    }

    /** The answer to {@code question} at {@code revision} or later: built at most once by all who ask at once. */
    Answer answer(Question question, long revision) {
        while (true) {
            Answer held = held(question, revision);
            if (held != null) {
                return held;
            }
            CompletableFuture<Answer> mine = new CompletableFuture<>();
            CompletableFuture<Answer> theirs = building.putIfAbsent(question, mine);
            if (theirs == null) {
                return buildAs(mine, question, revision);
            }
            Answer shared = joined(theirs);
            if (shared.servesAt(revision, clock.instant())) {
                return shared;
            }
            // that build began before the revision this caller has seen: build (or join) again
        }
    }

    /** Drops the answers older than {@code revision}: nobody is sent one again. */
    void forgetBefore(long revision) {
        synchronized (answers) {
            answers.values().removeIf(answer -> answer.revision() < revision);
        }
    }

    private Answer held(Question question, long revision) {
        Answer answer;
        synchronized (answers) {
            answer = answers.get(question);
        }
        return answer != null && answer.servesAt(revision, clock.instant()) ? answer : null;
    }

    private Answer hold(Question question, Answer answer) {
        synchronized (answers) {
            answers.put(question, answer);
        }
        return answer;
    }

    private int heldCount() {
        synchronized (answers) {
            return answers.size();
        }
    }

    private Answer buildAs(CompletableFuture<Answer> mine, Question question, long revision) {
        try {
            // a build of the same question may have finished between the lookup and taking its place
            Answer answer = held(question, revision);
            if (answer == null) {
                answer = build(question, revision);
            }
            mine.complete(answer);
            return answer;
        } catch (Throwable e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            building.remove(question, mine);
        }
    }

    /** The build's answer, or its failure: those who asked at the same moment share that too, not retry it one by one. */
    private static Answer joined(CompletableFuture<Answer> build) {
        try {
            return build.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }

    private Answer build(Question question, long revision) {
        Instant now = clock.instant();
        if (question.region() == null) {
            RuleSnapshot snapshot = reader.read(null).activeAt(now);
            return hold(question, written(snapshot.revision(), "legacy", snapshot, staleAt(snapshot.overrides(), now),
                    "the snapshot of every region"));
        }
        if (question.since() == null) {
            return hold(question, snapshot(question.region(), reader.read(question.region()), now));
        }
        Question snapshotQuestion = Question.of(null, question.region());
        Optional<RuleChanges> read = reader.readSince(question.since(), question.region());
        if (read.isEmpty()) {
            // not held under this question: each since a caller chooses would otherwise keep its own copy
            return answer(snapshotQuestion, revision);
        }
        RuleChanges changes = read.get();
        Answer delta = written(changes.revision(), "delta", changes, null, "the delta");
        if (delta.refusal() == null) {
            return hold(question, delta);
        }
        metrics.watchAnswerOverCap("delta");
        // past the cap a snapshot of the region is hardly larger, and the pod needs one or the other; held under
        // this question as well (the same bytes), so that its next asker does not read the delta again
        return hold(question, answer(snapshotQuestion, changes.revision()));
    }

    private Answer snapshot(String region, RuleSnapshot read, Instant now) {
        RuleSnapshot snapshot = read.activeAt(now);
        return written(snapshot.revision(), "snapshot", RuleChanges.snapshot(snapshot, region), staleAt(snapshot.overrides(), now),
                "the snapshot of region " + region);
    }

    private Answer written(long revision, String kind, Object value, Instant staleAt, String what) {
        metrics.watchAnswerBuilt(kind);
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
