/** Rules, per-account overrides and region budgets: the small, versioned control-path data. */
package dev.tollgate.common.rule;
