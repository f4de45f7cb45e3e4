package dev.tollgate.bench.scenario;

import dev.tollgate.bench.wire.WireCheck;
import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleSnapshot;
import dev.tollgate.common.wire.WireFormat;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import tools.jackson.databind.json.JsonMapper;

import java.util.List;
import java.util.Locale;

/**
 * The traffic mix as check-service reads it: its rules as a static rules file (or a saved snapshot), and each check both as the
 * HTTP check's JSON body and as Envoy's {@code ShouldRateLimit} request, whose descriptors the file maps to
 * the same rules and keys. The two entries of a check (the plan's bucket and the route's, on the account's
 * key) are two descriptors: {@code (plan, account)} and {@code (route, account)}, each keyed by the account.
 */
final class WireChecks {

    /** The descriptor entries Envoy's route configuration would send. */
    static final String PLAN = "plan";
    static final String ROUTE = "route";
    static final String ACCOUNT = "account";

    private static final JsonMapper JSON = WireFormat.configure(JsonMapper.builder()).build();
    /** The design's mix's rules, and the store-bound mix's route (its plan is the design's Enterprise). */
    static final List<Rule> RULES = List.of(Plans.ENTERPRISE, Plans.GROWTH, Plans.FREE, Plans.ROUTE, StoreBoundMix.ROUTE);

    private WireChecks() {
    }

    /** check-service's {@code tollgate.rules.file} for the mix: the plans, the route, and Envoy's descriptors for them. */
    static String rulesFile() {
        StringBuilder yaml = new StringBuilder("rules:\n");
        for (Rule rule : RULES) {
            Limit.TokenBucket bucket = (Limit.TokenBucket) rule.limit();
            yaml.append("  - id: ").append(rule.id()).append('\n')
                    .append("    domain: ").append(rule.domain()).append('\n')
                    .append("    match: { ").append(rule.match().plan() != null ? "plan: " + rule.match().plan() : "route: \"" + rule.match().route() + "\"")
                    .append(" }\n")
                    .append("    algorithm: ").append(rule.algorithm().name().toLowerCase(Locale.ROOT)).append('\n')
                    .append("    rate_per_s: ").append(bucket.ratePerS()).append('\n')
                    .append("    period_s: ").append(bucket.periodS()).append('\n')
                    .append("    burst: ").append(bucket.burst()).append('\n');
        }
        yaml.append("descriptor_domains:\n  - domain: ").append(RULES.get(0).domain()).append("\n    descriptors:\n");
        for (Rule rule : RULES) {
            boolean plan = rule.match().plan() != null;
            yaml.append("      - key: ").append(plan ? PLAN : ROUTE).append('\n')
                    .append("        value: \"").append(plan ? rule.match().plan() : rule.match().route()).append("\"\n")
                    .append("        descriptors:\n")
                    .append("          - key: ").append(ACCOUNT).append('\n')
                    .append("            rule: ").append(rule.id()).append('\n')
                    .append("            limit_key: ").append(ACCOUNT).append('\n');
        }
        return yaml.toString();
    }

    /** The same rules as a pod's saved rules snapshot ({@code tollgate.rules.snapshot-file}), for pods in the chart's shape. */
    static byte[] snapshot() {
        return JSON.writeValueAsBytes(new RuleSnapshot(1, RULES, List.of(), List.of()));
    }

    /** One check of the mix, in both encodings. */
    static WireCheck of(CheckRequest request) {
        RateLimitRequest.Builder envoy = RateLimitRequest.newBuilder().setDomain(request.domain());
        for (CheckEntry entry : request.entries()) {
            Rule rule = RULES.stream().filter(r -> r.id().equals(entry.rule())).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no rule " + entry.rule() + " in the wire scenario's rules"));
            boolean plan = rule.match().plan() != null;
            envoy.addDescriptors(RateLimitDescriptor.newBuilder()
                    .addEntries(RateLimitDescriptor.Entry.newBuilder().setKey(plan ? PLAN : ROUTE)
                            .setValue(plan ? rule.match().plan() : rule.match().route()))
                    .addEntries(RateLimitDescriptor.Entry.newBuilder().setKey(ACCOUNT).setValue(entry.key())));
        }
        return new WireCheck(JSON.writeValueAsBytes(request), envoy.build());
    }
}
