/** Where a pod's rules come from: a static rules file read once at start-up, or rules-service's watch feed ({@link dev.tollgate.check.rules.RulesWatcher} over {@link dev.tollgate.check.rules.RulesFeed}) shown a {@link dev.tollgate.check.rules.WatchToken}. */
package dev.tollgate.check.rules;
