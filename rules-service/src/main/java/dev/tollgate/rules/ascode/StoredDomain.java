package dev.tollgate.rules.ascode;

import dev.tollgate.common.ascode.DomainConfig;
import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Rule;

import java.util.List;
import java.util.Optional;

/**
 * What the store holds of one domain, at its versions: its rules, its mapping (none: null), and the overrides of
 * its rules that are active. An expired override still has its row but applies to nothing, so a file neither
 * lists nor keeps it: it is not part of the domain's configuration.
 */
record StoredDomain(String domain, List<Rule> rules, DescriptorDomain descriptors, List<AccountOverride> overrides) {

    DomainConfig config() {
        return new DomainConfig(domain, rules, descriptors, overrides);
    }

    Optional<Rule> rule(String id) {
        return rules.stream().filter(rule -> rule.id().equals(id)).findFirst();
    }
}
