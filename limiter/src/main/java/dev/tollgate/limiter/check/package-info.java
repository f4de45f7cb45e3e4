/**
 * How one check flows, stage by stage, each handing the next a value: grouping, the pod's local answers, the
 * store behind the shard's breaker (or the rule's fail mode), and the one writer of the verdicts. Only
 * {@link dev.tollgate.limiter.check.CheckPipeline} is public, for {@link dev.tollgate.limiter.Limiter}.
 */
package dev.tollgate.limiter.check;
