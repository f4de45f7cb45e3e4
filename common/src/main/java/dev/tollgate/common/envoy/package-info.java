/**
 * envoyproxy/ratelimit's configuration files, as Tollgate's rules and descriptor mappings: read by a pod from a
 * directory, and imported into rules-service, by the same translation.
 */
package dev.tollgate.common.envoy;
