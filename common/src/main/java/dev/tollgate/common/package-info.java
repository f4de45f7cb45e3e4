/**
 * The model every Tollgate part agrees on: rules and their limits, the check contract, and the rule
 * validator that both rules-service and every pod run. Plain Java, so a gateway can embed it.
 */
package dev.tollgate.common;
