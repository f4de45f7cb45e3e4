package dev.tollgate.rules.console;

import dev.tollgate.common.rule.Algorithm;
import dev.tollgate.common.rule.Mode;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleFields;
import dev.tollgate.rules.change.FieldChange;
import dev.tollgate.rules.change.HistoryEntry;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What the rules list and a rule's page show, from {@link Rule} and its {@link HistoryEntry history}:
 * the one place these pages meet those types.
 */
final class RulePage {

    private RulePage() {
    }

    /** A rule as a row of the list, or the head of its page. */
    record Summary(String id, String domain, String match, String algorithm, String limit, boolean shadow, String failMode,
                   int maxCost, long version, boolean tokenBucket) {
    }

    /** One change in the history, newest first on the page. */
    record Change(long revision, Instant changedAt, String changedBy, String reason, String what, String versions,
                  List<FieldChange> fields) {
    }

    static Summary summary(Rule rule) {
        String match = describeMatch(rule);
        RuleFields fields = RuleFields.of(rule);
        String limit = rule.algorithm() == Algorithm.TOKEN_BUCKET
                ? fields.ratePerS() + (fields.periodS() == 1 ? "/s" : " per " + fields.periodS() + " s") + ", burst " + fields.burst()
                : fields.limit() + " per " + fields.windowS() + " s";
        return new Summary(rule.id(), rule.domain(), match, KeyPage.label(rule.algorithm()), limit, rule.mode() == Mode.SHADOW,
                rule.failMode().name().toLowerCase(Locale.ROOT), rule.maxCost(), rule.version(), rule.algorithm() == Algorithm.TOKEN_BUCKET);
    }

    static List<Summary> summaries(List<Rule> rules) {
        return rules.stream().map(RulePage::summary).toList();
    }

    /** Newest first, each with the fields it changed. */
    static List<Change> history(List<HistoryEntry> entries) {
        List<Change> changes = new ArrayList<>(entries.size());
        for (int i = entries.size() - 1; i >= 0; i--) {
            HistoryEntry entry = entries.get(i);
            String entity = entry.entity().toLowerCase(Locale.ROOT).replace('_', ' ');
            String what = entry.change().toLowerCase(Locale.ROOT) + " " + entity
                    + (entry.accountId() == null ? "" : " for " + entry.accountId());
            String versions = entry.oldVersion() == null && entry.newVersion() == null ? ""
                    : (entry.oldVersion() == null ? "" : "v" + entry.oldVersion()) + " → " + (entry.newVersion() == null ? "deleted" : "v" + entry.newVersion());
            changes.add(new Change(entry.revision(), entry.changedAt(), entry.changedBy(), entry.reason(), what, versions,
                    FieldChange.between(entry.oldValue(), entry.newValue())));
        }
        return changes;
    }

    private static String describeMatch(Rule rule) {
        List<String> parts = new ArrayList<>();
        if (rule.match().plan() != null) {
            parts.add("plan " + rule.match().plan());
        }
        if (rule.match().route() != null) {
            parts.add("route " + rule.match().route());
        }
        parts.add("per " + rule.identity().name().toLowerCase(Locale.ROOT).replace('_', ' '));
        return String.join(", ", parts);
    }
}
