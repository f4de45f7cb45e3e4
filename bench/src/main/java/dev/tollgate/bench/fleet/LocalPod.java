package dev.tollgate.bench.fleet;

import dev.tollgate.bench.load.Answer;
import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.rules.RuleBook;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The design's "each pod counts alone" baseline: every rule's rate and burst divided by a configured
 * number of pods (the fleet size it was set up for, which autoscaling does not change), checked
 * all-or-nothing over the request's entries. A slice below one token of burst is raised to one, or a
 * small plan could never admit anything on a pod; that is the kindest version of this baseline.
 */
public final class LocalPod implements Gate {

    private static final CompletableFuture<Answer> ALLOWED = CompletableFuture.completedFuture(Answer.ALLOWED);
    private static final CompletableFuture<Answer> DENIED = CompletableFuture.completedFuture(Answer.DENIED);

    private final RuleBook rules;
    private final int configuredPods;
    private final Map<String, PodBucket> buckets = new HashMap<>();

    public LocalPod(RuleBook rules, int configuredPods) {
        this.rules = rules;
        this.configuredPods = configuredPods;
    }

    @Override
    public synchronized CompletableFuture<Answer> check(CheckRequest request) {
        long now = System.nanoTime();
        List<CheckEntry> entries = request.entries();
        PodBucket[] touched = new PodBucket[entries.size()];
        for (int i = 0; i < entries.size(); i++) {
            CheckEntry entry = entries.get(i);
            Rule rule = rules.find(request.domain(), entry.rule(), entry.key());
            if (rule == null) {
                continue;
            }
            touched[i] = buckets.computeIfAbsent(entry.rule() + '\u0000' + entry.key(), k -> slice(rule, now));
            if (!touched[i].holds(entry.costValue(), now)) {
                return DENIED;
            }
        }
        for (int i = 0; i < entries.size(); i++) {
            if (touched[i] != null) {
                touched[i].spend(entries.get(i).costValue());
            }
        }
        return ALLOWED;
    }

    private PodBucket slice(Rule rule, long now) {
        double ratePerSecond = rule.limit().perSecond() / configuredPods;
        double burst = Math.max(1.0, (double) rule.limit().capacity() / configuredPods);
        return new PodBucket(ratePerSecond, burst, now);
    }
}
