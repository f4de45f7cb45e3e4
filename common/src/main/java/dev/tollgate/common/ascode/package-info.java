/**
 * Rules as code: one domain's whole configuration (its rules, its descriptor mapping, its accounts' overrides)
 * as a file kept in git, read field by field and judged by the shared validators, and written back in one
 * canonical form, so that a file exported and applied again changes nothing.
 */
package dev.tollgate.common.ascode;
