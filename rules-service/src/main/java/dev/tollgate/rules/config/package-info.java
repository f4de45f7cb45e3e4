/** Service-wide wiring: the JSON wire format and its strict reading, what a request body must be (size, media type), the clock and the OpenAPI description. */
package dev.tollgate.rules.config;
