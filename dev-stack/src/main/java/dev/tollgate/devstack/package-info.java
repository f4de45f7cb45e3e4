/**
 * The one-command embedded stack: {@link dev.tollgate.devstack.DevStack} starts the stores and the services in one
 * JVM, loads the demo rules, prints what to try, and stops everything on Ctrl-C.
 */
package dev.tollgate.devstack;
