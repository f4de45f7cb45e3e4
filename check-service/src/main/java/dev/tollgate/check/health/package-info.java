/** What {@code /actuator/health} says about the counter store: reported, never used to pull a serving pod. */
package dev.tollgate.check.health;
