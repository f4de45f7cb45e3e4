/**
 * A real Redis Cluster for integration tests: {@code redis-server} processes on loopback ports (the one on
 * PATH, else the binary inside the embedded-redis jar), formed and checked the way production expects it,
 * with kill and freeze for failover tests.
 */
package dev.tollgate.testsupport.redis;
