/**
 * Every failure as RFC 9457 problem details with a stable {@code code}: the exceptions features throw
 * for expected outcomes (409, 422, 428, ...) and the one advice that maps them, and PostgreSQL outages,
 * to responses. Nothing a caller sends ends in a 500.
 */
package dev.tollgate.rules.problem;
