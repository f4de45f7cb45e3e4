package dev.tollgate.check.envoy;

import dev.tollgate.common.check.Attributes;
import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckProblem;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.rules.DescriptorBook;
import dev.tollgate.limiter.rules.RuleIndex;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * An Envoy request as the engine's check: one entry per descriptor that a mapping resolves to a rule,
 * costing its {@code hits_addend}. Descriptors with no rule get no entry and are answered OK, as
 * envoyproxy/ratelimit answers a descriptor it has no limit for; so are those whose limit another
 * descriptor of the call {@code replaces}, and those that land on an {@code unlimited} node.
 *
 * <p>A domain with no descriptor mapping reads each descriptor as attributes ({@code plan}, {@code route},
 * {@code api_key}, {@code ip}, {@code user}: its entries' keys and values) and checks the rules whose match covers
 * them, as the HTTP check by attributes does, so such a descriptor may stand for several entries. A rule whose
 * identity the descriptor does not carry is keyed by the digest of an empty value: every such call shares one
 * counter, never none.
 *
 * @param request   the check, unless no descriptor resolved to a rule
 * @param entriesOf for each descriptor, its entries in the check (none: no limit applies)
 * @param unlimited for each descriptor, whether its mapping says it has no limit
 * @param details   for each entry of the check, its series name when its node counts hits per value
 * @param unmatched descriptors no mapping resolved (not the unlimited, not the replaced)
 * @param overridesIgnored descriptors that carried Envoy's per-request {@code limit}: the rule's limit applies
 *                  instead. A limit lives in its rule, changed through rules-service with its history; one that
 *                  any filter in front of Envoy could set per request would be a limit the caller chooses
 * @param problems  what makes the call no request at all (no domain, no descriptors, an empty descriptor);
 *                  empty when it can be checked
 */
record DescriptorCheck(Optional<CheckRequest> request, int[][] entriesOf, boolean[] unlimited, List<Optional<String>> details,
                       int unmatched, int overridesIgnored, List<CheckProblem> problems) {

    private static final int[] NONE = new int[0];

    static DescriptorCheck of(RateLimitRequest envoy, DescriptorBook book, RuleIndex rules) {
        List<CheckProblem> problems = new ArrayList<>();
        if (envoy.getDomain().isBlank()) {
            problems.add(CheckProblem.ofRequest("domain", "is required"));
        }
        if (envoy.getDescriptorsCount() == 0) {
            problems.add(CheckProblem.ofRequest("descriptors", "must hold at least one descriptor"));
        }
        int count = envoy.getDescriptorsCount();
        boolean byAttributes = !book.knows(envoy.getDomain());
        List<Optional<DescriptorBook.Resolved>> resolved = new ArrayList<>(count);
        Set<String> replaced = new HashSet<>();
        for (int i = 0; i < count; i++) {
            RateLimitDescriptor descriptor = envoy.getDescriptors(i);
            if (descriptor.getEntriesCount() == 0) {
                problems.add(CheckProblem.ofRequest("descriptors[" + i + "].entries", "must hold at least one entry"));
                resolved.add(Optional.empty());
                continue;
            }
            if (byAttributes) {
                // no mapping to resolve against: the descriptor is read as attributes below
                resolved.add(Optional.empty());
                continue;
            }
            List<String> keys = new ArrayList<>(descriptor.getEntriesCount());
            List<String> values = new ArrayList<>(descriptor.getEntriesCount());
            for (RateLimitDescriptor.Entry entry : descriptor.getEntriesList()) {
                keys.add(entry.getKey());
                values.add(entry.getValue());
            }
            Optional<DescriptorBook.Resolved> found = book.resolve(envoy.getDomain(), keys, values);
            found.ifPresent(limit -> replaced.addAll(limit.replaces()));
            resolved.add(found);
        }
        int[][] entriesOf = new int[count][];
        boolean[] unlimited = new boolean[count];
        List<Optional<String>> details = new ArrayList<>();
        List<CheckEntry> entries = new ArrayList<>();
        int unmatched = 0;
        int overridesIgnored = 0;
        for (int i = 0; i < count; i++) {
            entriesOf[i] = NONE;
            RateLimitDescriptor descriptor = envoy.getDescriptors(i);
            overridesIgnored += descriptor.hasLimit() ? 1 : 0;
            if (byAttributes) {
                entriesOf[i] = byAttributes(envoy.getDomain(), descriptor, BigDecimal.valueOf(hits(envoy, descriptor)), rules, entries, details);
                unmatched += entriesOf[i].length == 0 && descriptor.getEntriesCount() > 0 ? 1 : 0;
                continue;
            }
            Optional<DescriptorBook.Resolved> found = resolved.get(i);
            if (found.isEmpty()) {
                unmatched += descriptor.getEntriesCount() == 0 ? 0 : 1;
            } else if (found.get() instanceof DescriptorBook.Unlimited) {
                unlimited[i] = true;
            } else if (found.get() instanceof DescriptorBook.Limited limited
                    && (limited.name().isEmpty() || !replaced.contains(limited.name().get()))) {
                entriesOf[i] = new int[] {entries.size()};
                entries.add(new CheckEntry(limited.rule(), limited.key(), BigDecimal.valueOf(hits(envoy, descriptor))));
                details.add(limited.detail());
            }
        }
        Optional<CheckRequest> request = entries.isEmpty() || !problems.isEmpty()
                ? Optional.empty() : Optional.of(new CheckRequest(envoy.getDomain(), entries));
        return new DescriptorCheck(request, entriesOf, unlimited, List.copyOf(details), unmatched, overridesIgnored, List.copyOf(problems));
    }

    /** The entries of the rules whose match covers the descriptor read as attributes; their indexes in the check. */
    private static int[] byAttributes(String domain, RateLimitDescriptor descriptor, BigDecimal cost, RuleIndex rules,
                                      List<CheckEntry> entries, List<Optional<String>> details) {
        Map<String, String> attributes = new HashMap<>();
        for (RateLimitDescriptor.Entry entry : descriptor.getEntriesList()) {
            attributes.put(entry.getKey(), entry.getValue());
        }
        List<Rule> found = rules.matching(domain, attributes.get(Attributes.PLAN), attributes.get(Attributes.ROUTE));
        int[] indexes = new int[found.size()];
        for (int r = 0; r < found.size(); r++) {
            Rule rule = found.get(r);
            indexes[r] = entries.size();
            entries.add(new CheckEntry(rule.id(), DescriptorBook.storable(attributes.getOrDefault(Attributes.of(rule.identity()), "")), cost));
            details.add(Optional.empty());
        }
        return indexes;
    }

    /**
     * The descriptor's own {@code hits_addend}, else the request's. The request's 0 is "not set", one hit; a
     * descriptor's own 0 looks without spending, as envoyproxy/ratelimit's does: the descriptor is OVER_LIMIT
     * when its limit could not take one more hit, and nothing is counted.
     */
    private static long hits(RateLimitRequest envoy, RateLimitDescriptor descriptor) {
        if (descriptor.hasHitsAddend()) {
            long hits = descriptor.getHitsAddend().getValue();
            // a uint64 above Long.MAX_VALUE arrives negative: far above any rule's max_cost either way
            return hits < 0 ? Long.MAX_VALUE : hits;
        }
        return Math.max(1, Integer.toUnsignedLong(envoy.getHitsAddend()));
    }

    /** The problems in one line, each entry named as the descriptor Envoy's caller sent: {@code descriptors[3].cost ...}. */
    String describe(List<CheckProblem> found) {
        StringBuilder text = new StringBuilder();
        for (CheckProblem problem : found) {
            if (!text.isEmpty()) {
                text.append("; ");
            }
            text.append(problem.path(entry -> "descriptors[" + descriptorOf(entry) + "]")).append(' ').append(problem.message());
        }
        return text.toString();
    }

    private int descriptorOf(int entry) {
        for (int i = 0; i < entriesOf.length; i++) {
            for (int own : entriesOf[i]) {
                if (own == entry) {
                    return i;
                }
            }
        }
        return entry;
    }
}
