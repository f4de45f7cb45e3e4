/**
 * The model every Tollgate part agrees on: rules and their limits, the check contract, and the rule
 * validator that both rules-service and every pod run. Plain Java, so a gateway can embed it; only
 * {@code wire}, which the HTTP services use, needs Jackson, an optional dependency (the model carries
 * Jackson's annotations alone, which nothing needs at run time).
 */
package dev.tollgate.common;
