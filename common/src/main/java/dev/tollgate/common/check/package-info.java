/**
 * The wire contract of {@code POST /v1/ratelimit:check}, shaped after Envoy's rate limit service: a
 * domain plus entries, answered with the strictest verdict and what is left of each entry's limit.
 */
package dev.tollgate.common.check;
