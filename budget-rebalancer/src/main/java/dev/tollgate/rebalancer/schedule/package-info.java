/** When and how a cycle runs: the lock, the reads, the plan and its write, every period. */
package dev.tollgate.rebalancer.schedule;
