/** Service-wide wiring: the JSON wire format, the clock and the OpenAPI description. */
package dev.tollgate.rules.config;
