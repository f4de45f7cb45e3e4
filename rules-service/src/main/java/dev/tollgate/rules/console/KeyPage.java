package dev.tollgate.rules.console;

import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Algorithm;
import dev.tollgate.common.rule.RegionBudget;
import dev.tollgate.rules.usage.KeyUsage;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * What the key's page shows, from {@link KeyUsage}: the one place the page meets the usage types.
 *
 * @param buckets   every limit that applies, the ones with state (in use) first
 * @param overrides the key's active overrides
 * @param shares    every region's share of the key's limits
 */
record KeyPage(String key, String region, Instant readAt, List<Bucket> buckets, List<OverrideRow> overrides, List<ShareRow> shares) {

    /**
     * @param left      tokens (token bucket) or requests (log, window) one could still spend here now
     * @param limit     the most there can be: the bucket's size, or the count the window allows
     * @param resets    when it is back to full, in words
     * @param limitText the limit as configured, with an override applied
     */
    record Bucket(String ruleId, String domain, String algorithm, boolean shadow, boolean inUse, long left, long limit,
                  String resets, String limitText, String share, boolean overridden, boolean reported, String recentRate) {

        public boolean empty() {
            return left <= 0;
        }
    }

    record OverrideRow(String ruleId, int ratePerS, int burst, Instant expiresAt, String reason) {
    }

    record ShareRow(String ruleId, String region, String share, boolean here) {
    }

    static KeyPage of(KeyUsage usage) {
        long now = usage.readAt().toEpochMilli();
        List<Bucket> buckets = usage.limits().stream()
                .map(limit -> bucket(limit, now))
                .sorted(Comparator.comparing((Bucket b) -> !b.inUse()).thenComparing(Bucket::ruleId))
                .toList();
        List<OverrideRow> overrides = usage.overrides().stream()
                .sorted(Comparator.comparing(AccountOverride::ruleId))
                .map(o -> new OverrideRow(o.ruleId(), o.ratePerS(), o.burst(), o.expiresAt(), o.reason()))
                .toList();
        List<ShareRow> shares = usage.regionBudgets().stream()
                .sorted(Comparator.comparing(RegionBudget::ruleId).thenComparing(RegionBudget::region))
                .map(b -> new ShareRow(b.ruleId(), b.region(), percent(b.share()), b.region().equals(usage.region())))
                .toList();
        return new KeyPage(usage.key(), usage.region(), usage.readAt(), buckets, overrides, shares);
    }

    /** The token-bucket rules of the key's limits: the ones an override can raise. */
    public List<String> overridableRules() {
        return buckets.stream().filter(b -> b.algorithm().equals(label(Algorithm.TOKEN_BUCKET))).map(Bucket::ruleId).sorted().toList();
    }

    /** The store's clock when read, to the second, as the page prints it. */
    public String readAtText() {
        return DateTimeFormatter.ofPattern("HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC).format(readAt);
    }

    /** The domains of the key's rules, for the explain form: a check names one. */
    public List<String> domains() {
        return buckets.stream().map(Bucket::domain).distinct().sorted().toList();
    }

    public List<String> ruleIds() {
        return buckets.stream().map(Bucket::ruleId).toList();
    }

    /** The rules whose usage the pods report: those split across regions (no per-IP limit, no sliding log). */
    public List<String> reportedRuleIds() {
        return buckets.stream().filter(Bucket::reported).map(Bucket::ruleId).toList();
    }

    private static Bucket bucket(KeyUsage.Limit limit, long nowMs) {
        KeyUsage.Applied rule = limit.rule();
        long left;
        long capacity;
        boolean stored;
        String resets;
        String limitText;
        if (limit instanceof KeyUsage.TokenBucket bucket) {
            left = bucket.tokens();
            capacity = bucket.capacity();
            stored = bucket.stored();
            double refillPerS = bucket.ratePerS() * rule.share() / bucket.periodS();
            long missing = capacity - left;
            resets = missing <= 0 ? "full" : "full in " + duration(Duration.ofMillis((long) Math.ceil(missing * 1000 / refillPerS)));
            limitText = bucket.ratePerS() + (bucket.periodS() == 1 ? "/s" : " per " + duration(Duration.ofSeconds(bucket.periodS())))
                    + ", burst " + capacity;
        } else if (limit instanceof KeyUsage.SlidingLog log) {
            left = log.remaining();
            capacity = log.capacity();
            stored = log.stored();
            resets = log.count() == 0 ? "full" : "full within " + duration(Duration.ofSeconds(log.windowS()));
            limitText = capacity + " per " + duration(Duration.ofSeconds(log.windowS())) + " (sliding)";
        } else {
            KeyUsage.FixedWindow window = (KeyUsage.FixedWindow) limit;
            left = window.remaining();
            capacity = window.capacity();
            stored = window.stored();
            long windowMs = window.windowS() * 1000L;
            long end = nowMs - Math.floorMod(nowMs, windowMs) + windowMs;
            resets = "new window in " + duration(Duration.ofMillis(end - nowMs)) + " (" + Instant.ofEpochMilli(end) + ")";
            limitText = capacity + " per " + duration(Duration.ofSeconds(window.windowS())) + " window";
        }
        return new Bucket(rule.ruleId(), rule.domain(), label(rule.algorithm()), rule.mode() == dev.tollgate.common.rule.Mode.SHADOW,
                stored, left, capacity, resets, limitText, percent(rule.share()), rule.overridden(), rule.recentRatePerS() != null,
                rule.recentRatePerS() == null ? "not reported" : RateChart.rate(rule.recentRatePerS()));
    }

    static String label(Algorithm algorithm) {
        return algorithm.name().toLowerCase(Locale.ROOT);
    }

    static String percent(double share) {
        double value = share * 100;
        return (value == Math.rint(value) ? String.format(Locale.ROOT, "%d", (long) value) : String.format(Locale.ROOT, "%.1f", value)) + " %";
    }

    /** "45 s", "12 min", "3 h", "2 d": what a person reads at a glance. */
    static String duration(Duration duration) {
        long seconds = Math.max(0, (duration.toMillis() + 999) / 1000);
        if (seconds < 120) {
            return seconds + " s";
        }
        if (seconds < 7200) {
            return (seconds + 59) / 60 + " min";
        }
        if (seconds < 172_800) {
            return (seconds + 3599) / 3600 + " h";
        }
        return (seconds + 86_399) / 86_400 + " d";
    }
}
