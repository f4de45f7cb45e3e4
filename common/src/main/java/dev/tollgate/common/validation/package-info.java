/**
 * The one rule validator, run by rules-service before anything is stored (422) and by every pod on
 * each snapshot it receives, so a rule that slipped past one check is still never enforced.
 */
package dev.tollgate.common.validation;
