package dev.tollgate.rules.ascode;

import dev.tollgate.rules.descriptor.DescriptorRepository;
import dev.tollgate.rules.override.OverrideRepository;
import dev.tollgate.rules.rule.RuleRepository;
import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Rule;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Reads one domain as it is stored, inside a write's transaction or in a consistent read of its own. */
@Component
class DomainStore {

    private final RuleRepository rules;
    private final DescriptorRepository descriptors;
    private final OverrideRepository overrides;
    private final TransactionTemplate snapshot;
    private final Clock clock;

    DomainStore(RuleRepository rules, DescriptorRepository descriptors, OverrideRepository overrides, PlatformTransactionManager transactions,
                Clock clock) {
        this.rules = rules;
        this.descriptors = descriptors;
        this.overrides = overrides;
        this.clock = clock;
        // several queries, one state: an export must never show a mapping without the rule it names
        this.snapshot = new TransactionTemplate(transactions);
        this.snapshot.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);
        this.snapshot.setReadOnly(true);
    }

    /** The domain as the current transaction sees it: for a write, which holds the store lock. */
    StoredDomain read(String domain) {
        List<Rule> stored = rules.findAll(domain);
        Instant now = clock.instant();
        List<AccountOverride> active = new ArrayList<>();
        for (Rule rule : stored) {
            active.addAll(overrides.find(null, rule.id(), now));
        }
        return new StoredDomain(domain, stored, descriptors.find(domain).orElse(null), active);
    }

    /** The domain as one consistent read sees it, taking no lock: for an export. */
    StoredDomain snapshot(String domain) {
        return snapshot.execute(tx -> read(domain));
    }
}
