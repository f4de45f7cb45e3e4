/**
 * Real servers for the client's and the gateway adapter's integration tests: check-service pods in the test's JVM
 * on a real Redis Cluster, a DNS server answering A records on loopback, and a socket that never answers. Shipped
 * as this module's test jar so that gateway-spring-cloud's tests start pods the same way.
 */
package dev.tollgate.client.testing;
