package dev.tollgate.limiter;

import dev.tollgate.common.check.CheckProblem;
import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.store.script.Peek;

import java.util.List;
import java.util.Optional;

/**
 * What a check would answer now, and why, computed without spending anything: the answer to "why was this key
 * denied?". Each entry names the rule as it applies to the key (override included), the region's share, the
 * stage that would answer and the counters as the store holds them. A look takes no token, writes nothing to the
 * store (it reads under {@code peek.lua}'s no-writes) and moves no metric, lease, deny cache or breaker.
 */
public sealed interface Explanation {

    <T> T match(Cases<T> cases);

    /** One method per kind of explanation, as {@link Outcome.Cases} is for checks. */
    interface Cases<T> {

        T explained(Explained explained);

        T noRules();

        T invalid(List<CheckProblem> problems);
    }

    /** The stage of the check that would answer an entry, in the order a check tries them. */
    enum Stage {
        /** The domain has no rule of that id: the entry is allowed and says so. */
        UNKNOWN_RULE,
        /**
         * A count-after rule: the pod admits on its own count until its next flush answer, or denies because its last
         * flush answer said the key is over. Past the pod's allowance the group goes on to the stages below.
         */
        COUNT_AFTER,
        /** The pod remembers the store's deny for this limit and key, and denies without asking. */
        DENY_CACHE,
        /** The pod's coarse local-first bucket is empty: a deny without asking the store. */
        LOCAL_BUCKET,
        /** The pod holds requests the store leased to it for this key: an allow without asking. */
        LEASE,
        /** The store's counters decide. */
        STORE,
        /** The key's shard cannot be reached (its breaker is open, or the store did not answer the look): the rule's fail mode decides. */
        FAIL_MODE
    }

    /**
     * The request's entries explained.
     *
     * @param allowed whether the check would admit the request: every enforced entry's group allows
     */
    record Explained(boolean allowed, List<Entry> entries) implements Explanation {

        public Explained {
            entries = List.copyOf(entries);
        }

        @Override
        public <T> T match(Cases<T> cases) {
            return cases.explained(this);
        }
    }

    /**
     * One entry of the request.
     *
     * @param index    the entry's place in the request
     * @param ruleId   the rule the entry named
     * @param key      the entry's key
     * @param rule     the rule as it applies to the key, with an override in force applied; empty for an unknown rule
     * @param override the key's account override in force, with its expiry
     * @param share    the region's share of the key's limit
     * @param limitKey the store key that holds the entry's counter; empty for an unknown rule
     * @param shard    the counter shard the key lives on, when the store is connected
     * @param stage    what would answer the entry
     * @param allowed  whether that stage would admit the entry's group (a shadow rule's answer never denies the request)
     * @param why      the stage's reason in words: the deny cache's remaining hold, the lease left, the level, the breaker
     * @param level    the entry's counter as the store holds it, when it could be read
     */
    record Entry(int index, String ruleId, String key, Optional<Rule> rule, Optional<AccountOverride> override, double share,
                 Optional<String> limitKey, Optional<String> shard, Stage stage, boolean allowed, String why, Optional<Peek.Level> level) {
    }

    /** The pod holds no rules yet: a check would answer {@link Outcome.NoRules}. */
    record NoRules() implements Explanation {

        public static final NoRules INSTANCE = new NoRules();

        @Override
        public <T> T match(Cases<T> cases) {
            return cases.noRules();
        }
    }

    /** The request cannot be checked as sent, so there is nothing to explain. */
    record Invalid(List<CheckProblem> problems) implements Explanation {

        public Invalid {
            problems = List.copyOf(problems);
        }

        @Override
        public <T> T match(Cases<T> cases) {
            return cases.invalid(problems);
        }
    }
}
