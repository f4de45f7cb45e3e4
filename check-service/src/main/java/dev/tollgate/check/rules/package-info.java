/** Where a pod's rules come from: a static rules file, read once at start-up. */
package dev.tollgate.check.rules;
