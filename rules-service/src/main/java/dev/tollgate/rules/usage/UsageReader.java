package dev.tollgate.rules.usage;

import dev.tollgate.common.check.CheckRequestValidator;
import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.RegionBudget;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.algorithm.FixedWindows;
import dev.tollgate.limiter.algorithm.Spend;
import dev.tollgate.limiter.key.RedisKeys;
import dev.tollgate.rules.metrics.RulesMetrics;
import dev.tollgate.rules.problem.BadRequestException;
import dev.tollgate.rules.problem.CounterStoreUnavailableException;
import dev.tollgate.rules.store.OverrideRepository;
import dev.tollgate.rules.store.RegionBudgetRepository;
import dev.tollgate.rules.store.RuleRepository;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisFuture;
import org.springframework.stereotype.Component;

import java.nio.charset.StandardCharsets;
import dev.tollgate.limiter.usage.UsageKeys;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Builds a key's usage: the rules from PostgreSQL, the state of each from Redis, read with the same
 * key names, overrides and region shares the limiter uses, so what support sees is what the next
 * check would see. All reads are sent before the first is awaited (they share one slot, one node).
 */
@Component
class UsageReader {

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

    KeyUsage read(String key, String domain) {
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
            long now = counters.nowMs();
            // the last usage window every pod has flushed into: what the budget rebalancer reads too
            long window = UsageKeys.lastClosedWindow(now, USAGE_FLUSH_LAG);
            List<Pending> pending = new ArrayList<>(candidates.size());
            for (Rule rule : candidates) {
                AccountOverride override = overrideByRule.get(rule.id());
                Rule applied = override == null ? rule : rule.overriddenBy(override);
                double share = shareByRule.getOrDefault(rule.id(), defaultShare);
                pending.add(send(key, applied, share, override != null, now)
                        .withRecentUsage(counters.admittedIn(rule.id(), key, window)));
            }
            List<KeyUsage.Limit> limits = new ArrayList<>(pending.size());
            for (Pending read : pending) {
                limits.add(read.complete(now));
            }
            metrics.usageRead("ok");
            return new KeyUsage(key, region, Instant.ofEpochMilli(now), limits, keyOverrides, keyBudgets);
        } catch (CounterStoreUnavailableException e) {
            metrics.usageRead("unavailable");
            throw e;
        }
    }

    private Pending send(String key, Rule rule, double share, boolean overridden, long now) {
        return switch (rule.algorithm()) {
            case TOKEN_BUCKET -> {
                String redisKey = RedisKeys.limit(key, rule.id());
                yield new Pending(rule, share, overridden, redisKey, null, counters.bucket(redisKey));
            }
            case SLIDING_LOG -> {
                String redisKey = RedisKeys.log(key, rule.id());
                yield new Pending(rule, share, overridden, redisKey, null, counters.logCount(redisKey, now, new Spend(rule, share, 1).windowMs()));
            }
            case FIXED_WINDOW -> {
                // the limiter names windows in one place; ask it rather than repeat the naming here
                String redisKey = FixedWindows.key(key, rule.id(), new Spend(rule, share, 1).windowMs(), now);
                // q:{<key>}:<rule>:<window>; the encoded key holds no '}' and a rule id no ':', a window name may
                String window = redisKey.substring(redisKey.indexOf("}:") + 2 + rule.id().length() + 1);
                yield new Pending(rule, share, overridden, redisKey, window, counters.windowCount(redisKey));
            }
        };
    }

    /** One read in flight, and how to turn its answer into a {@link KeyUsage.Limit}. */
    private final class Pending {
        final Rule rule;
        final double share;
        final boolean overridden;
        final String redisKey;
        final String window;
        final RedisFuture<?> reply;
        RedisFuture<String> recentUsage;

        Pending withRecentUsage(RedisFuture<String> admitted) {
            this.recentUsage = admitted;
            return this;
        }

        /** Requests per second this region admitted in the last closed usage window. */
        Double recentRate() {
            String admitted = recentUsage == null ? null : counters.await(recentUsage);
            return admitted == null ? 0.0 : Long.parseLong(admitted) / (double) UsageKeys.WINDOW_SECONDS;
        }

        Pending(Rule rule, double share, boolean overridden, String redisKey, String window, RedisFuture<?> reply) {
            this.rule = rule;
            this.share = share;
            this.overridden = overridden;
            this.redisKey = redisKey;
            this.window = window;
            this.reply = reply;
        }

        @SuppressWarnings("unchecked")
        KeyUsage.Limit complete(long now) {
            Object answer = counters.await(reply);
            // the limiter's own scaling of one request's spend: the region's share, never below one request
            Spend oneRequest = new Spend(rule, share, 1);
            if (rule.limit() instanceof Limit.TokenBucket bucket) {
                List<KeyValue<String, String>> fields = (List<KeyValue<String, String>>) answer;
                TokenLevel level = TokenLevel.at(now, number(fields.get(0)), number(fields.get(1)), oneRequest.refillMilli(),
                        oneRequest.periodMs(), oneRequest.burstMilli());
                return new KeyUsage.Limit(rule.id(), rule.domain(), rule.algorithm(), rule.mode(), redisKey, level.stored(),
                        level.tokens(), level.capacity(), null, level.tokens(), bucket.ratePerS(), bucket.periodS(), null, null,
                        share, overridden, recentRate());
            }
            long limit = oneRequest.limit();
            long count = answer == null ? 0 : answer instanceof Long counted ? counted : Long.parseLong(answer.toString());
            return new KeyUsage.Limit(rule.id(), rule.domain(), rule.algorithm(), rule.mode(), redisKey, count > 0,
                    null, limit, count, Math.max(0, limit - count), null, null, ((Limit.CountPerWindow) rule.limit()).windowS(), window, share, overridden, recentRate());
        }
    }

    private static Long number(KeyValue<String, String> field) {
        return field.hasValue() ? Long.valueOf(field.getValue()) : null;
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
