/**
 * A real PostgreSQL for integration tests: a configured server, a Testcontainers container where Docker
 * answers, or zonky's embedded binaries (run as an unprivileged user where root cannot escape into a user
 * namespace), with a fresh database per test context.
 */
package dev.tollgate.testsupport.postgres;
