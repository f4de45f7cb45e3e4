package dev.tollgate.rules.watch;

import dev.tollgate.common.rule.RuleSnapshot;
import dev.tollgate.rules.store.ChangeLog;
import dev.tollgate.rules.store.DescriptorRepository;
import dev.tollgate.rules.store.OverrideRepository;
import dev.tollgate.rules.store.RegionBudgetRepository;
import dev.tollgate.rules.store.RuleRepository;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Clock;

/**
 * Reads the whole snapshot in one REPEATABLE READ transaction: the revision and every table as of the
 * same instant. Since writers commit in revision order, the snapshot holds exactly the changes up to
 * its revision, none half-applied.
 */
@Component
class SnapshotReader {

    private final ChangeLog changes;
    private final RuleRepository rules;
    private final OverrideRepository overrides;
    private final RegionBudgetRepository budgets;
    private final DescriptorRepository descriptors;
    private final TransactionTemplate transaction;
    private final Clock clock;

    SnapshotReader(ChangeLog changes, RuleRepository rules, OverrideRepository overrides, RegionBudgetRepository budgets,
                   DescriptorRepository descriptors, PlatformTransactionManager transactions, Clock clock) {
        this.descriptors = descriptors;
        this.changes = changes;
        this.rules = rules;
        this.overrides = overrides;
        this.budgets = budgets;
        this.clock = clock;
        this.transaction = new TransactionTemplate(transactions);
        this.transaction.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);
        this.transaction.setReadOnly(true);
    }

    RuleSnapshot read() {
        return transaction.execute(tx -> {
            long revision = changes.revision();
            return new RuleSnapshot(revision, rules.findAll(null), overrides.find(null, null, clock.instant()), budgets.findAll(),
                    descriptors.findAll());
        });
    }

    long revision() {
        return changes.revision();
    }
}
