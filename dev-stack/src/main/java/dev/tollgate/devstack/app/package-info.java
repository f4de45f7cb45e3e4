/**
 * Running several Spring Boot services on one classpath, each configured as if it were alone: its own
 * {@code application.yml}, its own web stack, and only the auto-configuration its own module would give it.
 */
package dev.tollgate.devstack.app;
