/**
 * rules-service: the control path. It owns rules, overrides and region budgets in PostgreSQL, audits
 * every change, and serves the watch feed from which every pod takes its rules without a deploy.
 */
package dev.tollgate.rules;
