/**
 * The JSON wire format both HTTP services speak, and why a body could not be read in it, as a field
 * path and a kind. Needs Jackson 3 (an optional dependency of common): only the services use it.
 */
package dev.tollgate.common.wire;
