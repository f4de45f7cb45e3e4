/** The names of check-service's own meters. */
package dev.tollgate.check.metrics;
