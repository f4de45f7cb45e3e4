package dev.tollgate.bench.soak;

import dev.tollgate.bench.wire.WireCheck;
import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.descriptor.DescriptorNode;
import dev.tollgate.common.rule.Limit;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleSnapshot;
import dev.tollgate.common.wire.WireFormat;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.lettuce.core.cluster.SlotHash;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The soak's checks and the rules they meet. API rules fail open (a plan's bucket and a route's, on the account's
 * key, in one script call), login fails closed (a sliding log per IP); thousands of accounts and IPs at a small rate
 * each, a few of each over their limit, a trickle of accounts never seen before (so every per-key cache of the pod
 * keeps taking keys and must drop them again), and some requests that are malformed on purpose.
 */
final class SoakTraffic {

    static final String DOMAIN = "soak";
    static final Rule PRO = Rule.tokenBucket("pro", DOMAIN, 20, 40).withMatch(new Match("pro", null));
    static final Rule FREE = Rule.tokenBucket("free", DOMAIN, 2, 4).withMatch(new Match("free", null));
    static final Rule ORDERS = Rule.tokenBucket("orders", DOMAIN, 100, 200).withMatch(new Match(null, "/v1/orders"));
    static final Rule LOGIN = Rule.slidingLog("login", DOMAIN, 10, 60).withMatch(new Match(null, "/v1/login"));
    static final List<Rule> RULES = List.of(FREE, LOGIN, ORDERS, PRO);

    static final int ACCOUNTS = 5_000;
    static final int IPS = 2_000;
    static final int OVER_LIMIT_ACCOUNTS = 5;
    static final int BRUTE_FORCE_IPS = 3;

    /** What a check is, which decides the answer docs/failure-modes.md promises for it. */
    enum Kind {
        /** A pro account well under its limits: fail open. */
        API("API, pro accounts", 0.75),
        /** A free account at 3× its 2/s: denies, and the deny cache. */
        API_OVER("API, over their limit", 0.05),
        /** An account no check named before. */
        API_NEW("API, new accounts", 0.02),
        /** A login from one of many IPs, mostly allowed: fail closed. */
        LOGIN("login", 0.15),
        /** Logins from a few IPs far over 10 a minute: denied. */
        LOGIN_BRUTE("login, brute force", 0.02),
        /** Malformed (bad JSON, an unknown field, no entries, a key too long, cost 0; over gRPC no descriptors): refused. */
        MALFORMED("malformed", 0.01);

        final String label;
        final double share;

        Kind(String label, double share) {
            this.label = label;
            this.share = share;
        }

        boolean failsClosed() {
            return this == LOGIN || this == LOGIN_BRUTE;
        }

        boolean malformed() {
            return this == MALFORMED;
        }
    }

    /** One check as both pods' ports take it, with the shard its key lives on (-1: none, a malformed request). */
    record Check(Kind kind, String key, int shard, WireCheck wire) {
    }

    private static final JsonMapper JSON = WireFormat.configure(JsonMapper.builder()).build();

    private final Check[] accounts = new Check[ACCOUNTS];
    private final Check[] ips = new Check[IPS];
    private final Check[] overLimit = new Check[OVER_LIMIT_ACCOUNTS];
    private final Check[] bruteForce = new Check[BRUTE_FORCE_IPS];
    private final Check[] malformed;
    private final double[] cumulative = new double[Kind.values().length];
    private final String run;
    private final AtomicLong newAccounts = new AtomicLong();

    /** @param run a tag of this run, in every key, so no bucket of an earlier run is met */
    SoakTraffic(String run) {
        this.run = run;
        for (int i = 0; i < ACCOUNTS; i++) {
            accounts[i] = api(Kind.API, "acct-" + run + "-" + i, PRO);
        }
        for (int i = 0; i < OVER_LIMIT_ACCOUNTS; i++) {
            overLimit[i] = api(Kind.API_OVER, "over-" + run + "-" + i, FREE);
        }
        for (int i = 0; i < IPS; i++) {
            // a cluster of the soak's own: no earlier run's log is met, so IPs need no run tag
            ips[i] = login(Kind.LOGIN, "10.0." + i / 250 + "." + i % 250);
        }
        for (int i = 0; i < BRUTE_FORCE_IPS; i++) {
            bruteForce[i] = login(Kind.LOGIN_BRUTE, "192.0.2." + (i + 1));
        }
        malformed = malformed(run);
        double sum = 0;
        for (Kind kind : Kind.values()) {
            sum += kind.share;
            cumulative[kind.ordinal()] = sum;
        }
    }

    /** The rules as a pod's saved snapshot, with Envoy's descriptors for them. */
    static byte[] snapshot() {
        DescriptorDomain domain = new DescriptorDomain(DOMAIN, List.of(
                new DescriptorNode("plan", "pro", null, null, List.of(new DescriptorNode("account", null, PRO.id(), "account", List.of()))),
                new DescriptorNode("plan", "free", null, null, List.of(new DescriptorNode("account", null, FREE.id(), "account", List.of()))),
                new DescriptorNode("route", "/v1/orders", null, null,
                        List.of(new DescriptorNode("account", null, ORDERS.id(), "account", List.of()))),
                new DescriptorNode("route", "/v1/login", null, null, List.of(new DescriptorNode("ip", null, LOGIN.id(), "ip", List.of())))),
                0);
        return JSON.writeValueAsBytes(new RuleSnapshot(1, RULES, List.of(), List.of(), List.of(domain)));
    }

    /** An enforced check of the rules: what a start waits for. */
    byte[] probe() {
        return accounts[0].wire().json();
    }

    Check next() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        double r = random.nextDouble() * cumulative[cumulative.length - 1];
        Kind kind = Kind.MALFORMED;
        for (Kind k : Kind.values()) {
            if (r < cumulative[k.ordinal()]) {
                kind = k;
                break;
            }
        }
        return switch (kind) {
            case API -> accounts[random.nextInt(accounts.length)];
            case API_OVER -> overLimit[random.nextInt(overLimit.length)];
            case API_NEW -> api(Kind.API_NEW, "new-" + run + "-" + newAccounts.incrementAndGet(), PRO);
            case LOGIN -> ips[random.nextInt(ips.length)];
            case LOGIN_BRUTE -> bruteForce[random.nextInt(bruteForce.length)];
            case MALFORMED -> malformed[random.nextInt(malformed.length)];
        };
    }

    /** Accounts first named so far. */
    long newAccounts() {
        return newAccounts.get();
    }

    /**
     * The shard of a key, as the cluster was built (primary i holds slots i × 16384 / 3 onwards; a failover moves a
     * primary's slots to its replica whole, so the ranges stay): the engine's Redis keys are {@code rl:{<key>}:...}, and
     * these keys need no percent-encoding, so the tag is the key.
     */
    static int shardOf(String key) {
        return SlotHash.getSlot(key) * 3 / SlotHash.SLOT_COUNT;
    }

    private static Check api(Kind kind, String key, Rule plan) {
        CheckRequest request = new CheckRequest(DOMAIN, List.of(CheckEntry.of(plan.id(), key, 1), CheckEntry.of(ORDERS.id(), key, 1)));
        RateLimitRequest envoy = RateLimitRequest.newBuilder().setDomain(DOMAIN)
                .addDescriptors(descriptor("plan", plan.match().plan(), "account", key))
                .addDescriptors(descriptor("route", ORDERS.match().route(), "account", key))
                .build();
        return new Check(kind, key, shardOf(key), new WireCheck(JSON.writeValueAsBytes(request), envoy));
    }

    private static Check login(Kind kind, String ip) {
        CheckRequest request = new CheckRequest(DOMAIN, List.of(CheckEntry.of(LOGIN.id(), ip, 1)));
        RateLimitRequest envoy = RateLimitRequest.newBuilder().setDomain(DOMAIN)
                .addDescriptors(descriptor("route", LOGIN.match().route(), "ip", ip))
                .build();
        return new Check(kind, ip, shardOf(ip), new WireCheck(JSON.writeValueAsBytes(request), envoy));
    }

    private static RateLimitDescriptor descriptor(String key, String value, String limitKey, String limitValue) {
        return RateLimitDescriptor.newBuilder()
                .addEntries(RateLimitDescriptor.Entry.newBuilder().setKey(key).setValue(value))
                .addEntries(RateLimitDescriptor.Entry.newBuilder().setKey(limitKey).setValue(limitValue))
                .build();
    }

    /** Requests the check refuses, each with an Envoy request it refuses too (no descriptors). */
    private static Check[] malformed(String run) {
        String key = "acct-" + run + "-0";
        String entry = "{\"rule\":\"pro\",\"key\":\"" + key + "\",\"cost\":1}";
        List<String> bodies = List.of(
                // cut off: 400 bad_request
                "{\"domain\":\"soak\",\"entries\":[" + entry,
                // an unknown field: 400
                "{\"domain\":\"soak\",\"entries\":[" + entry + "],\"priority\":1}",
                // no entries: 422
                "{\"domain\":\"soak\",\"entries\":[]}",
                // a key over 256 bytes: 422
                "{\"domain\":\"soak\",\"entries\":[{\"rule\":\"pro\",\"key\":\"" + "k".repeat(300) + "\",\"cost\":1}]}",
                // a negative cost: 422 (0 is a look)
                "{\"domain\":\"soak\",\"entries\":[{\"rule\":\"pro\",\"key\":\"" + key + "\",\"cost\":-1}]}");
        RateLimitRequest noDescriptors = RateLimitRequest.newBuilder().setDomain(DOMAIN).build();
        return bodies.stream()
                .map(body -> new Check(Kind.MALFORMED, "", -1, new WireCheck(body.getBytes(StandardCharsets.UTF_8), noDescriptors)))
                .toArray(Check[]::new);
    }

    /** The rate limits, for the report. */
    static String describeRules() {
        StringBuilder out = new StringBuilder();
        for (Rule rule : List.of(PRO, FREE, ORDERS, LOGIN)) {
            if (!out.isEmpty()) {
                out.append("; ");
            }
            out.append('`').append(rule.id()).append("` ");
            if (rule.limit() instanceof Limit.TokenBucket bucket) {
                out.append(bucket.ratePerS()).append("/s, burst ").append(bucket.burst());
            } else if (rule.limit() instanceof Limit.SlidingLog log) {
                out.append(log.limit()).append(" per ").append(log.windowS()).append(" s (sliding log)");
            }
            out.append(rule.failsClosed() ? ", fail closed" : ", fail open");
        }
        return out.toString();
    }
}
