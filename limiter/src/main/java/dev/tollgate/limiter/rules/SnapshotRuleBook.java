package dev.tollgate.limiter.rules;

import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.RegionBudget;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleSnapshot;

import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The rules a pod enforces from the last good snapshot of rules-service's watch feed. A new snapshot
 * replaces the old one in one reference swap, so a check sees either all of a change or none of it.
 *
 * <p>An account's override replaces its rule's rate and burst until the override's {@code expires_at}
 * by the pod's clock (no job has to remove it). This region's share of a key's limit comes from the
 * key's region budget; a key with no budget row gets the region's default share (its slice of the
 * default split, or 1.0 in a single-region deployment).
 */
public final class SnapshotRuleBook implements RuleBook {

    /** @param revision the store revision compiled; empty before the first snapshot, when no rule is known */
    private record Compiled(OptionalLong revision, Map<String, Rule> rules, RuleIndex index, Map<String, AccountOverride> overrides,
                            Map<String, Double> shares) {

        static final Compiled NOTHING_YET = new Compiled(OptionalLong.empty(), Map.of(), RuleIndex.EMPTY, Map.of(), Map.of());
    }

    /** One compiled snapshot, read by one check from start to end. */
    private final class View implements RuleBook {

        private final Compiled snapshot;

        private View(Compiled snapshot) {
            this.snapshot = snapshot;
        }

        @Override
        public Rule find(String domain, String ruleId, String key) {
            return SnapshotRuleBook.this.find(snapshot, domain, ruleId, key);
        }

        @Override
        public double share(Rule rule, String key) {
            return SnapshotRuleBook.this.share(snapshot, rule, key);
        }

        @Override
        public Optional<AccountOverride> override(String domain, String ruleId, String key) {
            return SnapshotRuleBook.this.override(snapshot, domain, ruleId, key);
        }

        @Override
        public RuleIndex index() {
            return snapshot.index();
        }

        @Override
        public boolean loaded() {
            return snapshot.revision().isPresent();
        }
    }

    private final Clock clock;
    private final String region;
    private final double defaultShare;
    private volatile Compiled current = Compiled.NOTHING_YET;

    public SnapshotRuleBook(Clock clock, String region, double defaultShare) {
        if (!(defaultShare > 0 && defaultShare <= 1)) {
            throw new IllegalArgumentException("the default share of a key without a region budget must be in (0, 1], was " + defaultShare);
        }
        this.clock = clock;
        this.region = region;
        this.defaultShare = defaultShare;
    }

    /** Replaces the rules; the caller has validated the snapshot. */
    public void apply(RuleSnapshot snapshot) {
        Map<String, Rule> rules = new HashMap<>();
        for (Rule rule : snapshot.rules()) {
            rules.put(id(rule.domain(), rule.id()), rule);
        }
        Map<String, AccountOverride> overrides = new HashMap<>();
        for (AccountOverride override : snapshot.overrides()) {
            overrides.put(id(override.accountId(), override.ruleId()), override);
        }
        Map<String, Double> shares = new HashMap<>();
        for (RegionBudget budget : snapshot.regionBudgets()) {
            if (budget.region().equals(region)) {
                shares.put(id(budget.ruleId(), budget.limitKey()), budget.share());
            }
        }
        current = new Compiled(OptionalLong.of(snapshot.revision()), Map.copyOf(rules), new RuleIndex(snapshot.rules()), Map.copyOf(overrides),
                Map.copyOf(shares));
    }

    /** The region whose budget shares this book applies: the one a pod asks the watch feed for. */
    public String region() {
        return region;
    }

    /** The revision of the snapshot in force; empty before the first one. */
    public OptionalLong revision() {
        return current.revision();
    }

    @Override
    public RuleBook view() {
        return new View(current);
    }

    /** The clock overrides are judged by: whoever merges snapshots for this book keeps its overrides by the same one. */
    public Clock clock() {
        return clock;
    }

    @Override
    public RuleIndex index() {
        return current.index();
    }

    @Override
    public boolean loaded() {
        return current.revision().isPresent();
    }

    @Override
    public Rule find(String domain, String ruleId, String key) {
        return find(current, domain, ruleId, key);
    }

    private Rule find(Compiled snapshot, String domain, String ruleId, String key) {
        Rule rule = snapshot.rules().get(id(domain, ruleId));
        if (rule == null) {
            return null;
        }
        AccountOverride override = snapshot.overrides().get(id(key, ruleId));
        if (override != null && override.activeAt(clock.instant())) {
            return rule.overriddenBy(override);
        }
        return rule;
    }

    @Override
    public Optional<AccountOverride> override(String domain, String ruleId, String key) {
        return override(current, domain, ruleId, key);
    }

    private Optional<AccountOverride> override(Compiled snapshot, String domain, String ruleId, String key) {
        if (!snapshot.rules().containsKey(id(domain, ruleId))) {
            return Optional.empty();
        }
        return Optional.ofNullable(snapshot.overrides().get(id(key, ruleId))).filter(override -> override.activeAt(clock.instant()));
    }

    @Override
    public double share(Rule rule, String key) {
        return share(current, rule, key);
    }

    private double share(Compiled snapshot, Rule rule, String key) {
        Double share = snapshot.shares().get(id(rule.id(), key));
        return share != null ? share : defaultShare;
    }

    private static String id(String first, String second) {
        return first + '\u0000' + second;
    }
}
