package dev.tollgate.check.envoy;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.InvalidCheckRequestException;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An Envoy request as the engine's check: one entry per descriptor that a mapping resolves to a rule,
 * costing its {@code hits_addend}. Descriptors with no rule get no entry and are answered OK, as
 * envoyproxy/ratelimit answers a descriptor it has no limit for.
 *
 * @param request  the check, or null when no descriptor resolved to a rule
 * @param entryOf  for each descriptor, its entry in the check, or -1
 */
record DescriptorCheck(CheckRequest request, int[] entryOf) {

    private static final Pattern ENTRY = Pattern.compile("entries\\[(\\d+)]");

    static DescriptorCheck of(RateLimitRequest envoy, DescriptorBook book) {
        List<InvalidCheckRequestException.Problem> problems = new ArrayList<>();
        if (envoy.getDomain().isBlank()) {
            problems.add(new InvalidCheckRequestException.Problem("domain", "is required"));
        }
        if (envoy.getDescriptorsCount() == 0) {
            problems.add(new InvalidCheckRequestException.Problem("descriptors", "must hold at least one descriptor"));
        }
        int[] entryOf = new int[envoy.getDescriptorsCount()];
        List<CheckEntry> entries = new ArrayList<>();
        for (int i = 0; i < envoy.getDescriptorsCount(); i++) {
            RateLimitDescriptor descriptor = envoy.getDescriptors(i);
            entryOf[i] = -1;
            if (descriptor.getEntriesCount() == 0) {
                problems.add(new InvalidCheckRequestException.Problem("descriptors[" + i + "].entries", "must hold at least one entry"));
                continue;
            }
            List<String> keys = new ArrayList<>(descriptor.getEntriesCount());
            List<String> values = new ArrayList<>(descriptor.getEntriesCount());
            for (RateLimitDescriptor.Entry entry : descriptor.getEntriesList()) {
                keys.add(entry.getKey());
                values.add(entry.getValue());
            }
            DescriptorBook.Resolved resolved = book.resolve(envoy.getDomain(), keys, values);
            if (resolved != null) {
                entryOf[i] = entries.size();
                entries.add(new CheckEntry(resolved.rule(), resolved.key(), BigDecimal.valueOf(hits(envoy, descriptor))));
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidCheckRequestException(problems);
        }
        return new DescriptorCheck(entries.isEmpty() ? null : new CheckRequest(envoy.getDomain(), entries), entryOf);
    }

    /**
     * The descriptor's own {@code hits_addend}, else the request's; Envoy sends 0 for "not set", which
     * means one hit. An explicit 0 counts as one too: every check spends (the engine has no peek).
     */
    private static long hits(RateLimitRequest envoy, RateLimitDescriptor descriptor) {
        long hits = descriptor.hasHitsAddend() ? descriptor.getHitsAddend().getValue() : Integer.toUnsignedLong(envoy.getHitsAddend());
        // a uint64 above Long.MAX_VALUE arrives negative: far above any rule's max_cost either way
        return hits < 0 ? Long.MAX_VALUE : Math.max(1, hits);
    }

    /** The engine names the check's entries; Envoy's caller knows its descriptors: say which one. */
    String describe(InvalidCheckRequestException problem) {
        StringBuilder text = new StringBuilder();
        for (InvalidCheckRequestException.Problem p : problem.problems()) {
            if (!text.isEmpty()) {
                text.append("; ");
            }
            text.append(renameEntries(p.field())).append(' ').append(renameEntries(p.message()));
        }
        return text.toString();
    }

    private String renameEntries(String text) {
        Matcher entry = ENTRY.matcher(text);
        StringBuilder out = new StringBuilder();
        while (entry.find()) {
            entry.appendReplacement(out, Matcher.quoteReplacement("descriptors[" + descriptorOf(Integer.parseInt(entry.group(1))) + "]"));
        }
        entry.appendTail(out);
        return out.toString();
    }

    private int descriptorOf(int entry) {
        for (int i = 0; i < entryOf.length; i++) {
            if (entryOf[i] == entry) {
                return i;
            }
        }
        return entry;
    }
}
