/** The service's metric names, in one place, all prefixed {@code tollgate.rules.}. */
package dev.tollgate.rules.metrics;
