package dev.tollgate.common.ascode;

import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Rule;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Everything one domain holds, as a file describes it and as an apply leaves it stored: no versions (the store
 * keeps those), rules ordered by id, overrides by account then rule, and the mapping's nodes in the order they
 * were written, since a wildcard's order decides which one matches.
 *
 * @param descriptors the domain's descriptor mapping; null when it has none
 */
public record DomainConfig(String domain, List<Rule> rules, DescriptorDomain descriptors, List<AccountOverride> overrides) {

    static final Comparator<AccountOverride> OVERRIDE_ORDER =
            Comparator.comparing(AccountOverride::accountId).thenComparing(AccountOverride::ruleId);

    public DomainConfig {
        Objects.requireNonNull(domain, "a domain's configuration names its domain");
        rules = rules == null ? List.of() : rules.stream().map(rule -> rule.withVersion(0)).sorted(Comparator.comparing(Rule::id)).toList();
        descriptors = descriptors == null || descriptors.descriptors().isEmpty() ? null : descriptors.withVersion(0);
        overrides = overrides == null ? List.of() : overrides.stream().sorted(OVERRIDE_ORDER).toList();
    }

    /** A domain with nothing in it: what applying a file that holds only {@code domain:} leaves. */
    public static DomainConfig empty(String domain) {
        return new DomainConfig(domain, List.of(), null, List.of());
    }
}
