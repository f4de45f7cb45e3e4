/**
 * The JSON wire format both HTTP services speak, why a body could not be read in it (as a field path and a
 * kind), and YAML or JSON files read as plain trees. Needs Jackson 3 (an optional dependency of common): only
 * the services and the CLI use it.
 */
package dev.tollgate.common.wire;
