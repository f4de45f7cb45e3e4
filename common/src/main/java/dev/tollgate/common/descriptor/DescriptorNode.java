package dev.tollgate.common.descriptor;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

/**
 * One level of a descriptor mapping: it matches a descriptor entry by {@code key} and, when given, by
 * {@code value}. As in envoyproxy/ratelimit, an exact value is preferred, then a value holding {@code *}
 * (a wildcard: each {@code *} matches any run of characters, tried in the order written), then a node
 * without a value.
 *
 * <p>The fields after {@code limitKey} are envoyproxy/ratelimit's own, so that its configuration files
 * map onto Tollgate's without losing a behaviour; each is left out of the wire form while unset, so a
 * mapping that uses none reads and writes as before.
 *
 * @param rule           the rule enforced for descriptors that end at this node; null for a node that
 *                       only leads to deeper ones, or is {@code unlimited}
 * @param limitKey       whose value is the limit key: the key of this node or of one above it. Null: all
 *                       the descriptor's values together, one counter per distinct descriptor as in
 *                       envoyproxy/ratelimit. Naming the account's entry makes the descriptor share the
 *                       account's key, so its overrides apply and its buckets are spent in one script
 * @param unlimited      descriptors ending here are answered OK without a limit, and not counted as unmatched
 * @param name           the name other nodes' {@code replaces} refer to
 * @param replaces       names of limits that a call matching this node does not apply: a premium route's
 *                       own limit replacing the default one
 * @param shareThreshold every value this node's wildcard matches shares one counter, instead of one per value
 * @param detailedMetric hits are counted per descriptor value as well as per rule (the number of such
 *                       series a pod keeps is bounded)
 * @param descriptors    the nodes one level deeper
 */
public record DescriptorNode(String key, String value, String rule, String limitKey,
                             @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean unlimited,
                             String name,
                             @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> replaces,
                             @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean shareThreshold,
                             @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean detailedMetric,
                             List<DescriptorNode> descriptors) {

    public DescriptorNode {
        replaces = replaces == null ? List.of() : List.copyOf(replaces);
        descriptors = descriptors == null ? List.of() : List.copyOf(descriptors);
    }

    /**
     * Read with the flags left out while unset, as they are written: Jackson 3 refuses an absent primitive
     * wherever {@code FAIL_ON_NULL_FOR_PRIMITIVES} is on (its default, and the wire format's strict reading),
     * so a stored mapping written without {@code unlimited} could not be read back.
     */
    @JsonCreator
    private static DescriptorNode read(String key, String value, String rule, String limitKey, Boolean unlimited, String name,
                                       List<String> replaces, Boolean shareThreshold, Boolean detailedMetric,
                                       List<DescriptorNode> descriptors) {
        return new DescriptorNode(key, value, rule, limitKey, Boolean.TRUE.equals(unlimited), name, replaces,
                Boolean.TRUE.equals(shareThreshold), Boolean.TRUE.equals(detailedMetric), descriptors);
    }

    /** A node that names a rule (or only leads deeper), with none of envoyproxy/ratelimit's extras. */
    public DescriptorNode(String key, String value, String rule, String limitKey, List<DescriptorNode> descriptors) {
        this(key, value, rule, limitKey, false, null, null, false, false, descriptors);
    }

    /** Whether {@code value} is a wildcard: it holds a {@code *}. */
    public boolean wildcard() {
        return value != null && value.indexOf('*') >= 0;
    }
}
