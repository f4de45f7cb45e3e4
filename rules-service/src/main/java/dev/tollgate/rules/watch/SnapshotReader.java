package dev.tollgate.rules.watch;

import dev.tollgate.common.rule.RuleChanges;
import dev.tollgate.common.rule.RuleSnapshot;
import dev.tollgate.rules.budget.RegionBudgetRepository;
import dev.tollgate.rules.change.ChangeLog;
import dev.tollgate.rules.descriptor.DescriptorRepository;
import dev.tollgate.rules.override.OverrideRepository;
import dev.tollgate.rules.rule.CanaryRepository;
import dev.tollgate.rules.rule.RuleRepository;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Clock;
import java.util.Optional;

/**
 * Reads a snapshot, or the changes since a revision, in one REPEATABLE READ transaction: the revision
 * and every table as of the same instant. Since writers commit in revision order, a snapshot holds
 * exactly the changes up to its revision, none half-applied; and a delta from R holds exactly the rows
 * stamped after R and the tombstones after R, all at or below the revision read with them, so a pod
 * that applies it holds what the snapshot at that revision holds.
 */
@Component
class SnapshotReader {

    private final ChangeLog changes;
    private final RuleRepository rules;
    private final CanaryRepository canaries;
    private final OverrideRepository overrides;
    private final RegionBudgetRepository budgets;
    private final DescriptorRepository descriptors;
    private final WatchTombstones tombstones;
    private final TransactionTemplate transaction;
    private final Clock clock;

    SnapshotReader(ChangeLog changes, RuleRepository rules, CanaryRepository canaries, OverrideRepository overrides,
                   RegionBudgetRepository budgets, DescriptorRepository descriptors, WatchTombstones tombstones,
                   PlatformTransactionManager transactions, Clock clock) {
        this.canaries = canaries;
        this.descriptors = descriptors;
        this.changes = changes;
        this.rules = rules;
        this.overrides = overrides;
        this.budgets = budgets;
        this.tombstones = tombstones;
        this.clock = clock;
        this.transaction = new TransactionTemplate(transactions);
        this.transaction.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);
        this.transaction.setReadOnly(true);
    }

    /** Everything, with {@code region}'s budget rows (every region's when null). */
    RuleSnapshot read(String region) {
        return transaction.execute(tx -> snapshot(changes.revision(), region));
    }

    /**
     * The changes after {@code since} in {@code region}; empty when there is no delta from {@code since}:
     * the feed no longer holds what went after it, or it is ahead of the store (restored from an older
     * copy, so the pod must follow it back). The pod is then sent the region's snapshot, which is the
     * same for every such {@code since}, so it is not read here: the caller shares one.
     */
    Optional<RuleChanges> readSince(long since, String region) {
        return transaction.execute(tx -> {
            long revision = changes.revision();
            if (since < tombstones.oldestRevision() || since > revision) {
                return Optional.empty();
            }
            return Optional.of(RuleChanges.delta(since, revision, region, rules.changedSince(since), overrides.changedSince(since),
                    budgets.changedSince(region, since), descriptors.changedSince(since), canaries.changedSince(since),
                    tombstones.goneSince(since, region)));
        });
    }

    private RuleSnapshot snapshot(long revision, String region) {
        return new RuleSnapshot(revision, rules.findAll(null), overrides.find(null, null, clock.instant()), budgets.findAll(region),
                descriptors.findAll(), canaries.findAll());
    }

    long revision() {
        return changes.revision();
    }
}
