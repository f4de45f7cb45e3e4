/**
 * What {@code /actuator/health} says about the pod: the counter store (reported, never used to pull a
 * serving pod) and readiness, which waits until the pod enforces: rules held, store reached once.
 */
package dev.tollgate.check.health;
