/**
 * Real servers for the client's and the gateway adapter's integration tests: check-service pods in the test's JVM
 * on a real Redis Cluster, a DNS server answering A records on loopback, a socket that never answers, and one whose
 * connects never complete. Shipped
 * as this module's test jar so that gateway-spring-cloud's tests start pods the same way.
 */
package dev.tollgate.client.testing;
