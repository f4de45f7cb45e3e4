/**
 * Scenario 8's machinery: servers in JVMs of their own (check-service's jar and the bare floor server),
 * their CPU time and allocation read over JMX, and the load generator's HTTP/1.1, h2c and gRPC clients.
 */
package dev.tollgate.bench.wire;
