package dev.tollgate.rules.usage;

import dev.tollgate.common.rule.Rule;
import dev.tollgate.rules.change.Columns;
import dev.tollgate.store.key.UsageKeys;

import java.util.List;

/**
 * A rule's canary beside the version the other pods enforce, as {@code GET /v1/rules/{id}/canary/rates} answers:
 * what the region's pods denied, and would have denied in shadow, per second by each version, over the usage windows
 * the counter store still holds. Each version's rates are those of the pods that enforce it (the canary pods, or all
 * the others), so with a few canary pods among many a like-for-like comparison divides by their shares of traffic.
 *
 * @param overS    the seconds the rates are over: the closed windows held and the open one so far
 * @param promoted the rule's version, as every pod but the canary pods enforces it
 * @param canary   the canary's version, as the canary pods enforce it
 */
public record CanaryRates(String ruleId, double overS, VersionRates promoted, VersionRates canary) {

    /** One version's rates; {@code mode} is the version's, so that a version in shadow is read by its shadow denies. */
    public record VersionRates(long version, String mode, double denyPerS, double shadowDenyPerS) {
    }

    static CanaryRates of(String ruleId, RecentUsage.Series series, Rule promoted, Rule canary) {
        double over = (series.starts().size() - 1) * (double) UsageKeys.WINDOW_SECONDS + series.openSeconds();
        return new CanaryRates(ruleId, over, rates(series, promoted, over), rates(series, canary, over));
    }

    private static VersionRates rates(RecentUsage.Series series, Rule version, double over) {
        return new VersionRates(version.version(), Columns.text(version.mode()),
                sum(series.costs().get(RecentUsage.denials(version.version(), false))) / over,
                sum(series.costs().get(RecentUsage.denials(version.version(), true))) / over);
    }

    private static long sum(List<Long> costs) {
        return costs.stream().mapToLong(Long::longValue).sum();
    }
}
