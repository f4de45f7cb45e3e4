/** Configuration: the properties (validated at start-up) and the wiring of the rebalancer's parts. */
package dev.tollgate.rebalancer.config;
