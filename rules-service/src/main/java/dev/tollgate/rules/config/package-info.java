/** Service-wide wiring: the JSON wire format and its strict reading, the request body cap, the clock and the OpenAPI description. */
package dev.tollgate.rules.config;
