/**
 * A pod's warm-up before it reports ready: {@link dev.tollgate.check.warmup.WarmUp}.
 */
package dev.tollgate.check.warmup;
