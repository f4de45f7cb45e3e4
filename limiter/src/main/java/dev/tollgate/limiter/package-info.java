/**
 * The embeddable limiter engine. {@link dev.tollgate.limiter.Limiter} is the entry point: a gateway can
 * use it as a plain Java library; check-service wraps it in HTTP.
 */
package dev.tollgate.limiter;
