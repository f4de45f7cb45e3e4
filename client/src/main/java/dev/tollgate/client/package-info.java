/**
 * A Java client of Tollgate's HTTP check: {@link dev.tollgate.client.TollgateClient} answers a
 * {@link dev.tollgate.client.CheckResult} within a per-call deadline, from Tollgate or, when Tollgate is
 * unreachable or late, from the client's own {@link dev.tollgate.client.FailMode}, marked as such.
 */
package dev.tollgate.client;
