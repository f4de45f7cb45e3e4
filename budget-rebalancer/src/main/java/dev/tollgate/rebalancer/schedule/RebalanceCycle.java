package dev.tollgate.rebalancer.schedule;

import dev.tollgate.store.key.UsageKeys;
import dev.tollgate.rebalancer.budget.BudgetBook;
import dev.tollgate.rebalancer.budget.Plan;
import dev.tollgate.rebalancer.budget.StoredBudgets;
import dev.tollgate.rebalancer.metrics.RebalancerMetrics;
import dev.tollgate.rebalancer.metrics.RebalancerMetrics.Outcome;
import dev.tollgate.rebalancer.store.BudgetStore;
import dev.tollgate.rebalancer.store.LeaderLock;
import dev.tollgate.rebalancer.usage.UsageReader;
import dev.tollgate.rebalancer.usage.WindowUsage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * One rebalancing cycle: hold the lock (or stand by), read the last closed usage window of every
 * region, plan, and write the plan in one transaction. Plumbing only; the decisions are
 * {@link BudgetBook}'s.
 *
 * <p>A region that cannot be read does not fail the cycle: the others are rebalanced and that region
 * keeps its shares. A rules store that fails us does: nothing is written, the lock is given up (its
 * session is in doubt), and the budgets in force stay as they are until a cycle succeeds.
 */
public final class RebalanceCycle {

    private static final Logger log = LoggerFactory.getLogger(RebalanceCycle.class);

    private final LeaderLock lock;
    private final UsageReader usage;
    private final BudgetStore store;
    private final BudgetBook book;
    private final RebalancerMetrics metrics;
    private final Clock clock;
    private final Duration usageLag;
    /** The store revision the book's copy is as of; -1 when it must be read again. */
    private long knownRevision = -1;

    public RebalanceCycle(LeaderLock lock, UsageReader usage, BudgetStore store, BudgetBook book, RebalancerMetrics metrics,
                          Clock clock, Duration usageLag) {
        this.lock = lock;
        this.usage = usage;
        this.store = store;
        this.book = book;
        this.metrics = metrics;
        this.clock = clock;
        this.usageLag = usageLag;
    }

    /** Runs one cycle; never throws. */
    public synchronized CycleResult run() {
        long started = System.nanoTime();
        Connection db = lock.hold();
        if (db == null) {
            // whoever is active may change the store meanwhile: read it whole when we take over
            knownRevision = -1;
            metrics.standby();
            return CycleResult.standby();
        }
        metrics.active(true);
        Instant now = clock.instant();
        long window = UsageKeys.lastClosedWindow(now.toEpochMilli(), usageLag);
        WindowUsage read = usage.read(window);
        long readDone = System.nanoTime();
        List<String> regions = usage.regionNames();
        for (int i = 0; i < regions.size(); i++) {
            metrics.regionRead(regions.get(i), read.reachable()[i]);
        }
        metrics.unreachable(read.unreachable());
        try {
            long revision = store.revision(db);
            if (revision != knownRevision) {
                StoredBudgets stored = store.load(db);
                book.reload(stored, now);
                knownRevision = stored.revision();
            }
            Plan plan = book.plan(read.byKey(), read.reachable(), now);
            long planned = System.nanoTime();
            if (!plan.changesNothing()) {
                long written = store.write(db, plan, now);
                book.applied(plan);
                // another writer between our read and our write: read the store again next cycle
                knownRevision = written == knownRevision + 1 ? written : -1;
            }
            long done = System.nanoTime();
            Outcome outcome = read.unreachable() == 0 ? Outcome.COMPLETE : Outcome.PARTIAL;
            metrics.keys(plan.rebalanced(), plan.writes().size(), plan.resets().size(), plan.skipped(), plan.deferred());
            metrics.cycle(outcome, done - started);
            CycleResult result = new CycleResult(outcome, window, read.byKey().size(), read.unreachable(), plan,
                    Duration.ofNanos(readDone - started), Duration.ofNanos(planned - readDone), Duration.ofNanos(done - planned));
            log.debug("cycle {}: window {}, {} keys with usage, {} written, {} reset, {} deferred, {} regions unreachable, {} ms",
                    outcome, window, result.keysWithUsage(), plan.writes().size(), plan.resets().size(), plan.deferred(),
                    read.unreachable(), result.total().toMillis());
            return result;
        } catch (SQLException | RuntimeException e) {
            log.warn("rebalancing cycle failed; budgets stay as they are and the lock is given up: {}", e.toString());
            knownRevision = -1;
            lock.release();
            metrics.active(false);
            metrics.cycle(Outcome.FAILED, System.nanoTime() - started);
            return new CycleResult(Outcome.FAILED, window, read.byKey().size(), read.unreachable(), CycleResult.NOTHING,
                    Duration.ofNanos(readDone - started), Duration.ZERO, Duration.ZERO);
        }
    }
}
