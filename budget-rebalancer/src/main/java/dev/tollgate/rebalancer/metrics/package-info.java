/** The budget rebalancer's meters, named in one place. */
package dev.tollgate.rebalancer.metrics;
