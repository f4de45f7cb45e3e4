/** Every metric the engine records, named in one place and prefixed {@code tollgate.}. */
package dev.tollgate.limiter.metrics;
