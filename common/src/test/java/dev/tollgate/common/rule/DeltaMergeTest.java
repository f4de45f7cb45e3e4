package dev.tollgate.common.rule;

import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.descriptor.DescriptorNode;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DeltaMergeTest {

    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
    private static final String REGION = "us-east";
    private static final RuleChanges.Deleted NOTHING = RuleChanges.Deleted.NOTHING;

    @Test
    void aSnapshotReplacesWhatThePodHoldsWithoutItsExpiredOverrides() {
        RuleSnapshot held = new RuleSnapshot(3, List.of(rule("a", 1)), List.of(), List.of());
        AccountOverride expired = new AccountOverride("acct", "b", 5, 5, NOW, null);
        RuleSnapshot sent = new RuleSnapshot(9, List.of(rule("b", 1)), List.of(expired), List.of(budget("b", "k", REGION, 0.5)));

        RuleSnapshot merged = DeltaMerge.apply(held, RuleChanges.snapshot(sent, REGION), NOW);

        assertThat(merged.revision()).isEqualTo(9);
        assertThat(merged.rules()).containsExactly(rule("b", 1));
        assertThat(merged.overrides()).isEmpty();
        assertThat(merged.regionBudgets()).containsExactly(budget("b", "k", REGION, 0.5));
    }

    @Test
    void aDeltaUpsertsAndDeletesAndTakesADeletedRulesOverridesAndBudgetsWithIt() {
        RuleSnapshot held = new RuleSnapshot(4, List.of(rule("a", 1), rule("b", 1)),
                List.of(override("x", "a", 10), override("x", "b", 10)),
                List.of(budget("a", "k1", REGION, 0.5), budget("b", "k1", REGION, 0.5), budget("b", "k2", REGION, 0.4)),
                List.of(domain("d1", "a"), domain("d2", "b")));
        RuleChanges delta = RuleChanges.delta(4, 6, REGION, List.of(rule("a", 2), rule("c", 1)), List.of(override("y", "a", 20)),
                List.of(budget("a", "k2", REGION, 0.7)), List.of(domain("d1", "c")), List.of(),
                new RuleChanges.Deleted(List.of("b"), List.of(new RuleChanges.OverrideKey("x", "a")), List.of(), List.of("d2"), List.of()));

        RuleSnapshot merged = DeltaMerge.apply(held, delta, NOW);

        assertThat(merged.revision()).isEqualTo(6);
        assertThat(merged.rules()).containsExactly(rule("a", 2), rule("c", 1));
        assertThat(merged.overrides()).containsExactly(override("y", "a", 20));
        assertThat(merged.regionBudgets()).containsExactly(budget("a", "k1", REGION, 0.5), budget("a", "k2", REGION, 0.7));
        assertThat(merged.descriptorDomains()).containsExactly(domain("d1", "c"));
    }

    @Test
    void aRowDeletedAndCreatedAgainInOneDeltaIsPresent() {
        RuleSnapshot held = new RuleSnapshot(4, List.of(rule("a", 1)), List.of(override("x", "a", 1)), List.of());
        RuleChanges delta = RuleChanges.delta(4, 5, REGION, List.of(rule("a", 7)), List.of(), List.of(), List.of(), List.of(),
                new RuleChanges.Deleted(List.of("a"), List.of(), List.of(), List.of(), List.of()));

        RuleSnapshot merged = DeltaMerge.apply(held, delta, NOW);

        assertThat(merged.rules()).containsExactly(rule("a", 7));
        assertThat(merged.overrides()).as("its overrides went with the rule, and the delta did not bring them back").isEmpty();
    }

    @Test
    void keepsOnlyTheAnswersRegionFromASnapshotThatHeldEveryRegion() {
        RuleSnapshot held = new RuleSnapshot(4, List.of(rule("a", 1)), List.of(),
                List.of(budget("a", "k", REGION, 0.6), budget("a", "k", "eu-west", 0.4)));

        RuleSnapshot merged = DeltaMerge.apply(held, RuleChanges.delta(4, 5, REGION, List.of(), List.of(), List.of(), List.of(), List.of(),
                NOTHING), NOW);

        assertThat(merged.regionBudgets()).containsExactly(budget("a", "k", REGION, 0.6));
    }

    @Test
    void refusesADeltaFromAnotherRevisionOrWithNothingHeld() {
        RuleChanges delta = RuleChanges.delta(4, 5, REGION, List.of(), List.of(), List.of(), List.of(), List.of(), NOTHING);

        assertThatThrownBy(() -> DeltaMerge.apply(new RuleSnapshot(3, List.of(), List.of(), List.of()), delta, NOW))
                .isInstanceOf(DeltaMerge.Mismatch.class).hasMessageContaining("holds revision 3");
        assertThatThrownBy(() -> DeltaMerge.apply(null, delta, NOW))
                .isInstanceOf(DeltaMerge.Mismatch.class).hasMessageContaining("holds no snapshot");
    }

    @Test
    void aCanaryComesAndGoesWithoutTouchingItsRuleAndGoesWithADeletedRule() {
        RuleSnapshot held = new RuleSnapshot(4, List.of(rule("a", 1), rule("b", 1)), List.of(), List.of(), List.of(), List.of(rule("b", 3)));
        RuleChanges written = RuleChanges.delta(4, 5, REGION, List.of(), List.of(), List.of(), List.of(), List.of(rule("a", 2)), NOTHING);

        RuleSnapshot withCanary = DeltaMerge.apply(held, written, NOW);

        assertThat(withCanary.rules()).containsExactly(rule("a", 1), rule("b", 1));
        assertThat(withCanary.canaries()).containsExactly(rule("a", 2), rule("b", 3));

        // a's canary promoted (the rule at its version, the canary gone), b deleted: its canary goes with it unlisted
        RuleChanges promoted = RuleChanges.delta(5, 6, REGION, List.of(rule("a", 2)), List.of(), List.of(), List.of(), List.of(),
                new RuleChanges.Deleted(List.of("b"), List.of(), List.of(), List.of(), List.of("a")));

        RuleSnapshot after = DeltaMerge.apply(withCanary, promoted, NOW);

        assertThat(after.rules()).containsExactly(rule("a", 2));
        assertThat(after.canaries()).isEmpty();
    }

    @Test
    void aCanaryPodEnforcesEachCanaryInPlaceOfItsRuleAndAnyOtherPodTheRules() {
        RuleSnapshot held = new RuleSnapshot(4, List.of(rule("a", 1), rule("b", 1)), List.of(), List.of(), List.of(),
                List.of(rule("b", 2), rule("orphan", 2)));

        assertThat(held.enforcedBy(true).rules()).containsExactly(rule("a", 1), rule("b", 2));
        assertThat(held.enforcedBy(false).rules()).containsExactly(rule("a", 1), rule("b", 1));
        assertThat(held.enforcedBy(true).canaries()).as("in force or not at all, never held beside").isEmpty();
        assertThat(held.enforcedBy(false).canaries()).isEmpty();
        RuleSnapshot none = new RuleSnapshot(4, List.of(rule("a", 1)), List.of(), List.of());
        assertThat(none.enforcedBy(true)).isSameAs(none);
    }

    /**
     * Following a store through any run of changes by deltas gives what a snapshot at each revision
     * gives: the deltas are built as the feed builds them (every row written after {@code from}, changed
     * or not; every key that went, a deleted rule's children left out or not, since the feed leaves them out).
     */
    @Property(tries = 300)
    void applyingDeltasEqualsReadingTheSnapshotAtTheNewRevision(@ForAll("histories") List<Store> history, @ForAll long seed) {
        Random random = new Random(seed);
        RuleSnapshot held = history.get(0).snapshot(0);
        for (int revision = 1; revision < history.size(); revision++) {
            Store before = history.get(revision - 1);
            Store after = history.get(revision);
            RuleChanges delta = delta(before, after, revision - 1, revision, random);

            held = DeltaMerge.apply(held, delta, NOW);

            RuleSnapshot fresh = after.snapshot(revision);
            assertThat(held.revision()).isEqualTo(fresh.revision());
            assertThat(held.rules()).containsExactlyInAnyOrderElementsOf(fresh.rules());
            assertThat(held.overrides()).containsExactlyInAnyOrderElementsOf(fresh.overrides());
            assertThat(held.regionBudgets()).containsExactlyInAnyOrderElementsOf(fresh.regionBudgets());
            assertThat(held.descriptorDomains()).containsExactlyInAnyOrderElementsOf(fresh.descriptorDomains());
            assertThat(held.canaries()).containsExactlyInAnyOrderElementsOf(fresh.canaries());
        }
    }

    /** The store as the feed sees it: rows by key, children only of rules that exist (the foreign keys). */
    record Store(Map<String, Rule> rules, Map<RuleChanges.OverrideKey, AccountOverride> overrides,
                 Map<RuleChanges.BudgetKey, RegionBudget> budgets, Map<String, DescriptorDomain> domains, Map<String, Rule> canaries) {

        RuleSnapshot snapshot(long revision) {
            return new RuleSnapshot(revision, List.copyOf(rules.values()),
                    overrides.values().stream().filter(o -> o.activeAt(NOW)).toList(), List.copyOf(budgets.values()),
                    List.copyOf(domains.values()), List.copyOf(canaries.values()));
        }
    }

    private static RuleChanges delta(Store before, Store after, long from, long to, Random random) {
        return RuleChanges.delta(from, to, REGION,
                written(before.rules(), after.rules(), random), written(before.overrides(), after.overrides(), random),
                written(before.budgets(), after.budgets(), random), written(before.domains(), after.domains(), random),
                written(before.canaries(), after.canaries(), random),
                new RuleChanges.Deleted(gone(before.rules(), after.rules()),
                        children(gone(before.overrides(), after.overrides()), RuleChanges.OverrideKey::ruleId, after, random),
                        children(gone(before.budgets(), after.budgets()), RuleChanges.BudgetKey::ruleId, after, random),
                        gone(before.domains(), after.domains()),
                        children(gone(before.canaries(), after.canaries()), id -> id, after, random)));
    }

    /** Every row that changed, and some rewritten with the same values (the rebalancer does that). */
    private static <K, V> List<V> written(Map<K, V> before, Map<K, V> after, Random random) {
        return after.entrySet().stream().filter(e -> !e.getValue().equals(before.get(e.getKey())) || random.nextInt(4) == 0)
                .map(Map.Entry::getValue).toList();
    }

    private static <K, V> List<K> gone(Map<K, V> before, Map<K, V> after) {
        return before.keySet().stream().filter(k -> !after.containsKey(k)).toList();
    }

    private static <K> List<K> children(List<K> gone, Function<K, String> rule, Store after, Random random) {
        boolean leaveOutOrphans = random.nextBoolean();
        return gone.stream().filter(k -> !leaveOutOrphans || after.rules().containsKey(rule.apply(k))).toList();
    }

    @Provide
    Arbitrary<List<Store>> histories() {
        return store().list().ofMinSize(2).ofMaxSize(8);
    }

    private static Arbitrary<Store> store() {
        Arbitrary<Set<String>> ruleIds = Arbitraries.of("a", "b", "c", "d").set();
        Arbitrary<Integer> version = Arbitraries.integers().between(1, 3);
        return Combinators.combine(ruleIds, version, Arbitraries.longs(), Arbitraries.of(-1, 0, 60)).as((ids, v, seed, expiry) -> {
            Random random = new Random(seed);
            Map<String, Rule> rules = ids.stream().collect(Collectors.toMap(id -> id, id -> rule(id, v + random.nextInt(2))));
            List<AccountOverride> overrides = new ArrayList<>();
            List<RegionBudget> budgets = new ArrayList<>();
            Map<String, Rule> canaries = new TreeMap<>();
            for (String id : ids) {
                if (random.nextBoolean()) {
                    canaries.put(id, rule(id, 5 + random.nextInt(2)));
                }
                for (String account : List.of("x", "y")) {
                    if (random.nextBoolean()) {
                        Instant expires = expiry < 0 ? null : NOW.plusSeconds(expiry);
                        overrides.add(new AccountOverride(account, id, 1 + random.nextInt(3), 5, expires, null));
                    }
                    if (random.nextBoolean()) {
                        budgets.add(budget(id, account, REGION, 0.1 * (1 + random.nextInt(9))));
                    }
                }
            }
            Set<String> domainNames = new HashSet<>();
            for (String name : List.of("d1", "d2")) {
                if (random.nextBoolean() && !ids.isEmpty()) {
                    domainNames.add(name);
                }
            }
            return new Store(rules,
                    overrides.stream().collect(Collectors.toMap(o -> new RuleChanges.OverrideKey(o.accountId(), o.ruleId()), o -> o)),
                    budgets.stream().collect(Collectors.toMap(b -> new RuleChanges.BudgetKey(b.ruleId(), b.limitKey()), b -> b)),
                    domainNames.stream().collect(Collectors.toMap(n -> n, n -> domain(n, ids.iterator().next()))), canaries);
        });
    }

    private static Rule rule(String id, long version) {
        return new Rule(id, "public-api", new Match("growth", null), null, Limit.TokenBucket.perSecond(10, 10), null, null, 1, version);
    }

    private static AccountOverride override(String account, String rule, int rate) {
        return new AccountOverride(account, rule, rate, rate, null, null);
    }

    private static RegionBudget budget(String rule, String key, String region, double share) {
        return new RegionBudget(rule, key, region, share, NOW);
    }

    private static DescriptorDomain domain(String name, String rule) {
        return new DescriptorDomain(name, List.of(new DescriptorNode("account", null, rule, null, List.of())), 1);
    }
}
