/**
 * What a proposed version of a rule would have denied over a recent span ({@code POST /v1/rules/{id}:simulate}):
 * the checks the pods recorded per rule, key and 10 s window, replayed through the scripts' arithmetic
 * ({@link dev.tollgate.store.BucketLevel}, the engine's region scaling), with the error the unknown order of arrivals
 * inside a window can make.
 */
package dev.tollgate.rules.simulate;
