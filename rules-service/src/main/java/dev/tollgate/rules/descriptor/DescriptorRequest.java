package dev.tollgate.rules.descriptor;

import dev.tollgate.common.descriptor.DescriptorNode;

import java.util.List;

/**
 * The body of {@code PUT /v1/descriptors/{domain}}: the domain's descriptors, as {@code GET} shows them,
 * plus the reason for the change. {@code domain} may be left out (the path names it) and {@code version}
 * is ignored ({@code If-Match} carries it).
 */
record DescriptorRequest(String domain, List<DescriptorNode> descriptors, Long version, String reason) {
}
