/**
 * The HTTP face of the check: {@code POST /v1/ratelimit:check}, and every error as RFC 9457 problem
 * details with a {@code code} member, so a gateway can act on it without parsing text; the check's JSON both
 * ways (WebFlux's codecs and the route's own reader and writer).
 */
package dev.tollgate.check.api;
