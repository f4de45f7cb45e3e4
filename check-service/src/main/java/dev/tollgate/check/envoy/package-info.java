/**
 * Envoy's rate limit service (RLS v3, {@code ShouldRateLimit}) on its own gRPC port, over the same
 * engine as the HTTP check: descriptors become check entries through the domain's descriptor mappings,
 * and the answer carries per-descriptor statuses and the RateLimit headers for Envoy to add.
 */
package dev.tollgate.check.envoy;
