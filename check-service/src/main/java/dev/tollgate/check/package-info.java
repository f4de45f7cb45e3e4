/** check-service: {@code POST /v1/ratelimit:check} over WebFlux, wrapping the limiter engine. */
package dev.tollgate.check;
