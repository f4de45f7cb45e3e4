/**
 * The HTTP face of the check: {@code POST /v1/ratelimit:check}, and every error as RFC 9457 problem
 * details with a {@code code} member, so a gateway can act on it without parsing text.
 */
package dev.tollgate.check.api;
