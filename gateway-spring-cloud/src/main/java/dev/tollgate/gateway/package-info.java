/**
 * Spring Cloud Gateway's {@code RequestRateLimiter} filter over Tollgate: {@link dev.tollgate.gateway.TollgateRateLimiter}
 * asks Tollgate (through tollgate-client, or the engine embedded in the gateway) and hands the filter the verdict
 * with the RateLimit headers to send on every answer, and {@code Retry-After} on a 429.
 */
package dev.tollgate.gateway;
