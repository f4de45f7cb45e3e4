/**
 * How Envoy's rate limit descriptors name Tollgate rules: per domain, a tree of descriptor keys and
 * values in the shape envoyproxy/ratelimit's configuration has, each node naming the rule it enforces.
 */
package dev.tollgate.common.descriptor;
