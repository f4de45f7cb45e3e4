package dev.tollgate.common.descriptor;

import java.util.List;

/**
 * The descriptor mappings of one domain, as envoyproxy/ratelimit users write a domain's configuration,
 * except that a node names a Tollgate rule instead of a {@code rate_limit}: the limit then lives in one
 * place, the rule, and a mapping can never disagree with it.
 *
 * <pre>
 * domain: public-api
 * descriptors:
 *   - key: account
 *     rule: growth-global
 *     descriptors:
 *       - key: route
 *         value: /v1/labels
 *         rule: labels-route
 *         limit_key: account
 * </pre>
 *
 * @param version the store version, as for rules (0 in a rules file)
 */
public record DescriptorDomain(String domain, List<DescriptorNode> descriptors, long version) {

    public DescriptorDomain {
        descriptors = descriptors == null ? List.of() : List.copyOf(descriptors);
    }

    public DescriptorDomain withVersion(long newVersion) {
        return new DescriptorDomain(domain, descriptors, newVersion);
    }

    /** Whether any node names {@code ruleId}: such a rule cannot go (or leave the domain) while this mapping stays. */
    public boolean names(String ruleId) {
        return names(descriptors, ruleId);
    }

    private static boolean names(List<DescriptorNode> nodes, String ruleId) {
        for (DescriptorNode node : nodes) {
            if (ruleId.equals(node.rule()) || names(node.descriptors(), ruleId)) {
                return true;
            }
        }
        return false;
    }
}
