/**
 * envoyproxy/ratelimit's configuration files imported as they are written: one file's rules and descriptor
 * mapping, translated by {@link dev.tollgate.common.envoy.EnvoyConfig} and stored in one transaction through
 * the rule and descriptor catalogs, or rehearsed and rolled back for a dry run.
 */
package dev.tollgate.rules.envoy;
