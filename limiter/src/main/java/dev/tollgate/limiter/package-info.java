/**
 * The embeddable limiter engine. {@link dev.tollgate.limiter.Limiter} is the entry point: a gateway can
 * use it as a plain Java library; check-service wraps it in HTTP. It spends through the counter store
 * ({@link dev.tollgate.store.CounterStore}, module counter-store).
 */
package dev.tollgate.limiter;
