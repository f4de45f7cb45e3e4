package dev.tollgate.common.descriptor;

import java.util.List;

/**
 * One level of a descriptor mapping: it matches a descriptor entry by {@code key} and, when given, by
 * {@code value} (an exact value is preferred to a node without one, as in envoyproxy/ratelimit).
 *
 * @param rule        the rule enforced for descriptors that end at this node; null for a node that only
 *                    leads to deeper ones
 * @param limitKey    whose value is the limit key: the key of this node or of one above it. Null: all the
 *                    descriptor's values together, one counter per distinct descriptor as in
 *                    envoyproxy/ratelimit. Naming the account's entry makes the descriptor share the
 *                    account's key, so its overrides apply and its buckets are spent in one script
 * @param descriptors the nodes one level deeper
 */
public record DescriptorNode(String key, String value, String rule, String limitKey, List<DescriptorNode> descriptors) {

    public DescriptorNode {
        descriptors = descriptors == null ? List.of() : List.copyOf(descriptors);
    }
}
