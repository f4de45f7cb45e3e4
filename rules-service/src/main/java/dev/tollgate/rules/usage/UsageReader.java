package dev.tollgate.rules.usage;

import dev.tollgate.common.check.CheckRequestValidator;
import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.RegionBudget;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.rules.budget.RegionBudgetRepository;
import dev.tollgate.rules.metrics.RulesMetrics;
import dev.tollgate.rules.override.OverrideRepository;
import dev.tollgate.rules.problem.BadRequestException;
import dev.tollgate.rules.problem.CounterStoreUnavailableException;
import dev.tollgate.rules.rule.RuleRepository;
import dev.tollgate.store.key.UsageKeys;
import dev.tollgate.store.read.BucketShape;
import dev.tollgate.store.read.CounterReads;
import dev.tollgate.store.read.LogCount;
import dev.tollgate.store.read.TokenLevel;
import dev.tollgate.store.read.WindowCount;
import dev.tollgate.store.script.Spend;
import org.springframework.stereotype.Component;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Builds a key's usage: the rules from PostgreSQL, the state of each from Redis through the counter
 * store's read port (its key names and refill arithmetic), with the overrides and region shares the
 * limiter uses, so what support sees is what the next check would see. All reads are sent before the
 * first is awaited (they share one slot, one node).
 */
@Component
public class UsageReader {

    /** Pods flush usage at least once a second: a window is complete a couple of seconds after it ends. */
    private static final java.time.Duration USAGE_FLUSH_LAG = java.time.Duration.ofSeconds(2);

    private final RuleRepository rules;
    private final OverrideRepository overrides;
    private final RegionBudgetRepository budgets;
    private final CounterReader counters;
    private final String region;
    private final double defaultShare;
    private final Clock clock;
    private final RulesMetrics metrics;

    UsageReader(RuleRepository rules, OverrideRepository overrides, RegionBudgetRepository budgets, CounterReader counters,
                UsageProperties properties, Clock clock, RulesMetrics metrics) {
        this.rules = rules;
        this.overrides = overrides;
        this.budgets = budgets;
        this.counters = counters;
        this.region = properties.region();
        this.defaultShare = properties.defaultShare();
        this.clock = clock;
        this.metrics = metrics;
    }

    public KeyUsage read(String key, String domain) {
        checkKey(key);
        List<Rule> candidates = rules.findAll(domain);
        List<AccountOverride> keyOverrides = overrides.find(key, null, clock.instant());
        List<RegionBudget> keyBudgets = budgets.forKey(key);
        Map<String, AccountOverride> overrideByRule = keyOverrides.stream()
                .collect(Collectors.toMap(AccountOverride::ruleId, Function.identity()));
        Map<String, Double> shareByRule = keyBudgets.stream()
                .filter(b -> b.region().equals(region))
                .collect(Collectors.toMap(RegionBudget::ruleId, RegionBudget::share));
        try {
            CounterReads store = counters.reads();
            long now = counters.await(store.clockMs());
            // the last usage window every pod has flushed into: what the budget rebalancer reads too
            long window = UsageKeys.lastClosedWindow(now, USAGE_FLUSH_LAG);
            List<Pending> pending = new ArrayList<>(candidates.size());
            for (Rule rule : candidates) {
                AccountOverride override = overrideByRule.get(rule.id());
                Rule applied = override == null ? rule : rule.overriddenBy(override);
                double share = shareByRule.getOrDefault(rule.id(), defaultShare);
                // pods report the usage of limits split across regions only (Rule.regionBudgeted)
                pending.add(new Pending(applied, share, override != null, send(store, key, applied, share, now),
                        rule.regionBudgeted() ? store.admitted(rule.id(), key, window) : null));
            }
            List<KeyUsage.Limit> limits = new ArrayList<>(pending.size());
            for (Pending read : pending) {
                limits.add(read.complete());
            }
            metrics.usageRead("ok");
            return new KeyUsage(key, region, Instant.ofEpochMilli(now), limits, keyOverrides, keyBudgets);
        } catch (CounterStoreUnavailableException e) {
            metrics.usageRead("unavailable");
            throw e;
        }
    }

    /** The read of one rule's state, scaled as the limiter scales one request's spend: the region's share, never below one request. */
    private static CompletableFuture<?> send(CounterReads store, String key, Rule rule, double share, long now) {
        Spend oneRequest = new Spend(rule, share, 1);
        return switch (rule.algorithm()) {
            case TOKEN_BUCKET -> store.tokenLevel(key, rule.id(),
                    new BucketShape(oneRequest.refillMilli(), oneRequest.periodMs(), oneRequest.burstMilli()), now);
            case SLIDING_LOG -> store.logCount(key, rule.id(), oneRequest.windowMs(), now);
            case FIXED_WINDOW -> store.windowCount(key, rule.id(), oneRequest.windowMs(), now);
        };
    }

    /** One rule's reads in flight, and how to turn their answers into a {@link KeyUsage.Limit}. */
    private final class Pending {
        final Rule rule;
        final double share;
        final boolean overridden;
        final CompletableFuture<?> state;
        /** Null for a rule whose usage the pods do not report. */
        final CompletableFuture<Long> admitted;

        Pending(Rule rule, double share, boolean overridden, CompletableFuture<?> state, CompletableFuture<Long> admitted) {
            this.rule = rule;
            this.share = share;
            this.overridden = overridden;
            this.state = state;
            this.admitted = admitted;
        }

        KeyUsage.Limit complete() {
            Object answer = counters.await(state);
            // requests per second this region admitted in the last closed usage window
            Double recentRate = admitted == null ? null : counters.await(admitted) / (double) UsageKeys.WINDOW_SECONDS;
            KeyUsage.Applied applied = new KeyUsage.Applied(rule.id(), rule.domain(), rule.algorithm(), rule.mode(), share, overridden,
                    recentRate);
            if (answer instanceof TokenLevel level && rule.limit() instanceof Limit.TokenBucket bucket) {
                return new KeyUsage.TokenBucket(applied, level.redisKey(), level.stored(), level.tokens(), level.capacity(),
                        level.tokens(), bucket.ratePerS(), bucket.periodS());
            }
            int windowS = ((Limit.CountPerWindow) rule.limit()).windowS();
            long limit = new Spend(rule, share, 1).limit();
            if (answer instanceof LogCount log) {
                return new KeyUsage.SlidingLog(applied, log.redisKey(), log.count() > 0, log.count(), limit,
                        Math.max(0, limit - log.count()), windowS);
            }
            WindowCount counted = (WindowCount) answer;
            return new KeyUsage.FixedWindow(applied, counted.redisKey(), counted.window(), counted.count() > 0, counted.count(), limit,
                    Math.max(0, limit - counted.count()), windowS);
        }
    }

    private static void checkKey(String key) {
        if (key.isEmpty() || key.getBytes(StandardCharsets.UTF_8).length > CheckRequestValidator.MAX_KEY_BYTES) {
            throw new BadRequestException("key must be 1 to " + CheckRequestValidator.MAX_KEY_BYTES + " bytes in UTF-8");
        }
        for (int i = 0; i < key.length(); i++) {
            if (Character.isISOControl(key.charAt(i))) {
                throw new BadRequestException("key must not contain control characters");
            }
        }
    }
}
