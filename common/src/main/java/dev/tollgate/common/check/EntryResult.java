package dev.tollgate.common.check;

import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Rule;

/**
 * What one entry's limit said.
 *
 * @param remaining   whole units left after this request (for a token bucket: tokens)
 * @param resetMs     milliseconds until the limit is back to full (bucket refilled, window over)
 * @param retryMs     on deny only: milliseconds until this entry could admit the same cost again
 * @param unknownRule {@code true} when no rule of that id exists: the entry is allowed and counted
 *                    in a metric, as Envoy's service treats an unmatched descriptor
 * @param shadow      {@code true} when the rule runs in shadow mode: its verdict is reported here but
 *                    never changes the request's
 * @param fallback    how the entry was answered when its counter shard could not be reached
 *                    ({@code fail_open}, {@code store_timeout}, {@code store_unavailable}); else null
 * @param quota       the rule's quota per window, as a gateway advertises it ({@code RateLimit-Policy}'s
 *                    {@code q}): a token bucket's rate per period, else the count per window; null for
 *                    an unknown rule. A full bucket may hold more ({@code burst}), so {@code remaining}
 *                    can exceed it
 * @param windowS     the seconds {@code quota} is counted over ({@code w}): the bucket's period, else the window
 */
public record EntryResult(
        String rule,
        Verdict verdict,
        long remaining,
        long resetMs,
        Long retryMs,
        Boolean unknownRule,
        Boolean shadow,
        String fallback,
        Integer quota,
        Integer windowS) {

    public static EntryResult allowed(String rule, long remaining, long resetMs) {
        return new EntryResult(rule, Verdict.ALLOW, remaining, resetMs, null, null, null, null, null, null);
    }

    public static EntryResult denied(String rule, long remaining, long resetMs, long retryMs) {
        return new EntryResult(rule, Verdict.DENY, remaining, resetMs, retryMs, null, null, null, null, null);
    }

    public static EntryResult unknown(String rule) {
        return new EntryResult(rule, Verdict.ALLOW, 0, 0, null, Boolean.TRUE, null, null, null, null);
    }

    public EntryResult asShadow() {
        return new EntryResult(rule, verdict, remaining, resetMs, retryMs, unknownRule, Boolean.TRUE, fallback, quota, windowS);
    }

    public EntryResult withFallback(String how) {
        return new EntryResult(rule, verdict, remaining, resetMs, retryMs, unknownRule, shadow, how, quota, windowS);
    }

    /** The same result, naming the limit it was measured against (after any account override). */
    public EntryResult withQuotaOf(Rule rule) {
        if (rule.limit() instanceof Limit.TokenBucket bucket) {
            return withQuota(bucket.ratePerS(), bucket.periodS());
        }
        Limit.CountPerWindow window = (Limit.CountPerWindow) rule.limit();
        return withQuota(window.limit(), window.windowS());
    }

    public EntryResult withQuota(int newQuota, int newWindowS) {
        return new EntryResult(rule, verdict, remaining, resetMs, retryMs, unknownRule, shadow, fallback, newQuota, newWindowS);
    }

    /** The verdict this entry contributes to the request: a shadow entry never denies. */
    public Verdict effectiveVerdict() {
        return Boolean.TRUE.equals(shadow) ? Verdict.ALLOW : verdict;
    }
}
