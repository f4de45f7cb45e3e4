package dev.tollgate.check.rules;

import dev.tollgate.check.metrics.CheckMeters;
import dev.tollgate.common.rule.DeltaMerge;
import dev.tollgate.common.rule.RuleChanges;
import dev.tollgate.common.rule.RuleSnapshot;
import dev.tollgate.common.validation.RuleValidator;
import dev.tollgate.common.validation.Violation;
import dev.tollgate.limiter.rules.DescriptorBook;
import dev.tollgate.limiter.rules.SnapshotRuleBook;
import dev.tollgate.store.backoff.Backoff.Jitter;
import dev.tollgate.store.backoff.Backoff;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps a pod's rules current (requirement #5): long-polls rules-service's watch feed ({@link RulesFeed})
 * from the last revision it holds, naming its region, and gets the changes since (or a snapshot, see
 * {@link RuleChanges}). It applies them to the snapshot it holds ({@link DeltaMerge}), checks the result
 * with the shared validator exactly as it checks a snapshot, and swaps a good one in at once, whole. A
 * failed poll is tried again after a jittered, capped backoff ({@link Backoff}).
 *
 * <p>What it holds and saves is the snapshot as sent, canaries included; what it enforces is that snapshot as this pod
 * enforces it ({@link RuleSnapshot#enforcedBy}): a canary pod each rule's canary in its place, any other pod the rules
 * as promoted. So a canary promoted or rolled back is one more delta, and a pod restarted as the other kind enforces
 * what that kind enforces from its saved snapshot.
 *
 * <p>A rules outage never blocks traffic: the pod goes on with its last good snapshot, which is also
 * saved to local disk so that a pod restarted while rules-service is down still enforces its rules.
 * A snapshot or delta that fails validation is refused whole and counted; the pod keeps the one before
 * it, and asks for a whole snapshot next, in case what it holds is what went wrong.
 */
public final class RulesWatcher implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RulesWatcher.class);

    private final WatchSettings settings;
    private final RulesFeed feed;
    private final Backoff.Streak backoff;
    private final SnapshotRuleBook rules;
    private final DescriptorBook descriptors;
    private final JsonMapper json;
    private final RuleValidator validator = new RuleValidator();
    /** The pod's clock, as the rule book's: a merged snapshot holds the overrides active by it. */
    private final Clock clock;
    /** The snapshot in force, which a delta applies to; only the watch thread (and the constructor) touch it. */
    private RuleSnapshot held;
    /** Whether the next watch asks for a whole snapshot: after a refused answer, in case what the pod holds is what is wrong. */
    private boolean resync;
    private final Map<Refusal, Counter> rejected = new EnumMap<>(Refusal.class);
    private final Counter errors;
    private final Counter refused;
    /** Whether the last poll was refused for its token, so that a refusal is logged once, not every poll. */
    private boolean wasRefused;
    /** Whether the last answer was too large to read: the same answer comes back every poll, and is logged once. */
    private boolean wasTooLarge;
    /** When the last poll succeeded ({@link System#nanoTime}), or the watcher was made: what the age gauge counts from. */
    private final AtomicLong lastPolled = new AtomicLong(System.nanoTime());
    /** The Error that failed the polls since the last success, so that it is logged once with its stack, not every retry. */
    private Class<? extends Throwable> failingWith;
    private final Thread thread;
    private volatile boolean running = true;

    /** Why a snapshot or an answer was refused: the {@code reason} of {@code tollgate.rules.snapshots.rejected}. */
    private enum Refusal {
        /** The result fails the shared validator. */
        INVALID,
        /** Not a snapshot or a delta that can be read. */
        UNREADABLE,
        /** A delta from another revision than the one the pod holds. */
        DELTA_MISMATCH,
        /** Larger than a pod reads ({@link RulesFeed.SnapshotTooLarge}): refused before it is held whole. */
        TOO_LARGE;

        String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * @param snapshotFile where the last good snapshot is kept across restarts
     * @param retryFirst   the ceiling of the first wait after a failed poll
     * @param retryMax     the ceiling of any wait between failed polls
     * @param canary       whether this is a canary pod, which enforces rules' canary versions in their place
     */
    public record WatchSettings(Path snapshotFile, Duration retryFirst, Duration retryMax, boolean canary) {

        public static final Duration DEFAULT_RETRY_FIRST = Duration.ofMillis(200);
        public static final Duration DEFAULT_RETRY_MAX = Duration.ofSeconds(10);

        public WatchSettings(Path snapshotFile) {
            this(snapshotFile, DEFAULT_RETRY_FIRST, DEFAULT_RETRY_MAX, false);
        }
    }

    public RulesWatcher(RulesFeed feed, WatchSettings settings, SnapshotRuleBook rules, JsonMapper json, MeterRegistry registry) {
        this(feed, settings, rules, new DescriptorBook(), json, registry);
    }

    public RulesWatcher(RulesFeed feed, WatchSettings settings, SnapshotRuleBook rules, DescriptorBook descriptors, JsonMapper json,
                        MeterRegistry registry) {
        this.feed = feed;
        this.settings = settings;
        // one per pod, seeded apart, so that pods that failed together do not retry together
        this.backoff = new Backoff(settings.retryFirst(), settings.retryMax(), Jitter.FULL).streak(new SplittableRandom());
        this.rules = rules;
        this.clock = rules.clock();
        this.descriptors = descriptors;
        this.json = json;
        for (Refusal reason : Refusal.values()) {
            // every reason from the start, so that a rate over it starts at the first refusal, not the second
            rejected.put(reason, Counter.builder(CheckMeters.RULES_SNAPSHOTS_REJECTED)
                    .description("Snapshots and answers the pod refused, by reason; the last good snapshot stays in force")
                    .tag("reason", reason.tag())
                    .register(registry));
        }
        this.errors = Counter.builder(CheckMeters.RULES_WATCH_ERRORS)
                .description("Watch calls that failed (rules-service down, bad answer)")
                .register(registry);
        this.refused = Counter.builder(CheckMeters.RULES_WATCH_REFUSED)
                .description("Watch calls rules-service refused (401/403): an expired or wrong token; the rules in force stay")
                .register(registry);
        // a gauge needs a number: -1 before the first snapshot, so the fleet's lowest revision shows a pod without rules
        Gauge.builder(CheckMeters.RULES_REVISION, rules, book -> book.revision().orElse(-1))
                .description("Revision of the rules snapshot in force; -1 while the pod holds none")
                .register(registry);
        // a poll ends within the poll timeout even when nothing changes (304), so a healthy pod stays under it; a pod past
        // it has a watcher that stopped or whose every poll fails, and its rules are frozen at tollgate.rules.revision
        Gauge.builder(CheckMeters.RULES_WATCH_AGE, lastPolled, last -> (System.nanoTime() - last.get()) / 1e9)
                .description("Seconds since the last watch call that succeeded (a change applied, or none within the watch timeout)")
                .baseUnit("seconds")
                .register(registry);
        loadSaved();
        this.thread = new Thread(this::watch, "rules-watcher");
        this.thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    /**
     * Whether the pod holds a rules snapshot, saved or fetched: until it does, every entry is an unknown
     * rule, so the pod is not ready.
     */
    public boolean holdsRules() {
        return rules.revision().isPresent();
    }

    private void loadSaved() {
        Path file = settings.snapshotFile();
        if (file == null || !Files.isReadable(file)) {
            return;
        }
        try {
            RuleSnapshot saved = json.readValue(file.toFile(), RuleSnapshot.class);
            if (accept(saved, "saved snapshot " + file)) {
                log.info("enforcing the saved rules snapshot at revision {} until rules-service answers", saved.revision());
            }
        } catch (JacksonException e) {
            log.warn("ignoring the unreadable saved rules snapshot {}: {}", file, e.getOriginalMessage());
        }
    }

    private void watch() {
        while (running) {
            try {
                pollOnce();
                backoff.reset();
                failingWith = null;
            } catch (Throwable e) {
                // an Error too: one that ended this thread would freeze the pod's rules without a word. An
                // OutOfMemoryError ends the JVM before it gets here where the chart runs pods (ExitOnOutOfMemoryError);
                // any other has unwound its stack by now, so the next poll starts clean
                errors.increment();
                failed(e);
                sleep(backoff.next());
            }
        }
    }

    private void failed(Throwable e) {
        if (e instanceof Exception) {
            // rules-service down or a bad answer: counted, and said where it is found out (a refusal, a token)
            log.debug("watching rules failed: {}", e.toString());
        } else if (e.getClass() != failingWith) {
            log.error("watching rules failed with an error; still enforcing {}, and polling again after a backoff", inForce(), e);
            failingWith = e.getClass();
        } else {
            log.debug("watching rules failed again: {}", e.toString());
        }
    }

    /** One long poll: apply what it brings, or nothing when the feed timed out with no change (304). */
    void pollOnce() throws IOException {
        OptionalLong since = resync ? OptionalLong.empty() : rules.revision();
        RulesFeed.Answer answer;
        try {
            answer = feed.poll(since, rules.region());
        } catch (RulesFeed.SnapshotTooLarge e) {
            rejected.get(Refusal.TOO_LARGE).increment();
            if (!wasTooLarge) {
                // it comes back every poll until rules-service's snapshot shrinks: said once, counted every time
                log.error("refusing rules answers: {}; still enforcing {}", e.getMessage(), inForce());
            }
            wasTooLarge = true;
            throw e;
        }
        if (wasTooLarge) {
            log.info("rules answers are small enough to read again");
            wasTooLarge = false;
        }
        handle(answer, since);
        lastPolled.set(System.nanoTime());
    }

    private void handle(RulesFeed.Answer answer, OptionalLong since) throws IOException {
        int status = answer.status();
        if (status == 401 || status == 403) {
            refused.increment();
            if (status == 401) {
                feed.token().refused();
            }
            if (!wasRefused) {
                // an expired token would otherwise freeze the pod's rules without a word: say it once, loudly
                log.warn("rules-service refused the watch token ({}, {}): the pod keeps {} until a valid token is configured",
                        status, feed.token(), rules.revision().isEmpty() ? "no rules yet (checks answer 503 rules_unavailable)" : inForce());
            }
            wasRefused = true;
            throw new IOException("watch answered " + status);
        }
        if (wasRefused) {
            log.info("rules-service accepts the watch token again");
            wasRefused = false;
        }
        if (status == 304) {
            return;
        }
        if (status != 200) {
            throw new IOException("watch answered " + status);
        }
        byte[] body = answer.body();
        RuleSnapshot snapshot;
        try {
            // a delta, a snapshot, or an older rules-service's bare snapshot, which reads as one
            snapshot = DeltaMerge.apply(held, json.readValue(body, RuleChanges.class), clock.instant());
        } catch (JacksonException e) {
            // e.g. a rule without its algorithm's numbers: refused and counted as one that fails validation
            throw refused(Refusal.UNREADABLE, e.getOriginalMessage(), e);
        } catch (DeltaMerge.Mismatch e) {
            throw refused(Refusal.DELTA_MISMATCH, e.getMessage(), e);
        }
        if (since.isPresent() && snapshot.revision() == since.getAsLong()) {
            return;
        }
        if (!accept(snapshot, "revision " + snapshot.revision())) {
            resync = true;
            throw new IOException("refused rules revision " + snapshot.revision());
        }
        resync = false;
        save(snapshot);
    }

    private IOException refused(Refusal reason, String why, RuntimeException cause) {
        rejected.get(reason).increment();
        resync = true;
        log.error("refusing an unusable rules answer: {}; still enforcing {}", why, inForce());
        return new IOException("refused the watch answer: " + why, cause);
    }

    /** Validates and swaps in what this pod enforces of {@code snapshot}, which it then holds as sent. */
    private boolean accept(RuleSnapshot snapshot, String what) {
        RuleSnapshot enforced = snapshot.enforcedBy(settings.canary());
        List<Violation> violations = validator.validate(enforced);
        if (!violations.isEmpty()) {
            rejected.get(Refusal.INVALID).increment();
            log.error("refusing rules {}: {}; still enforcing {}", what, violations, inForce());
            return false;
        }
        rules.apply(enforced);
        descriptors.apply(enforced.descriptorDomains());
        held = snapshot;
        log.info("enforcing rules {} ({} rules, {} overrides, {} budgets, {} descriptor domains, {} canaries{})", what,
                enforced.rules().size(), enforced.overrides().size(), enforced.regionBudgets().size(), enforced.descriptorDomains().size(),
                snapshot.canaries().size(), snapshot.canaries().isEmpty() ? "" : settings.canary() ? " in force: a canary pod" : " not in force");
        return true;
    }

    private String inForce() {
        OptionalLong revision = rules.revision();
        return revision.isPresent() ? "rules revision " + revision.getAsLong() : "no rules";
    }

    /**
     * Written beside the target and moved over it, so a crash never leaves half a snapshot; a write or move that
     * fails takes its temporary file with it, else each revision that cannot be saved would leave one more behind,
     * until the volume is full. Streamed to the file: a copy of the JSON in the heap would come on top of
     * the body, the parsed answer and both rule books, at the moment the pod holds the most.
     */
    private void save(RuleSnapshot snapshot) {
        Path file = settings.snapshotFile();
        if (file == null) {
            return;
        }
        Path temp = null;
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            temp = Files.createTempFile(dir, ".rules-", ".tmp");
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(temp), 64 << 10)) {
                json.writeValue(out, snapshot);
            }
            try {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
            }
            temp = null;
        } catch (IOException | JacksonException e) {
            log.warn("could not save the rules snapshot to {}: {}", file, e.getMessage());
        } finally {
            if (temp != null) {
                deleteQuietly(temp);
            }
        }
    }

    private static void deleteQuietly(Path temp) {
        try {
            Files.deleteIfExists(temp);
        } catch (IOException e) {
            log.warn("could not delete the unsaved rules snapshot {}: {}", temp, e.getMessage());
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
