/** Where the engine finds the rule for an entry: the {@link dev.tollgate.limiter.rules.RuleBook} port and a static implementation. */
package dev.tollgate.limiter.rules;
