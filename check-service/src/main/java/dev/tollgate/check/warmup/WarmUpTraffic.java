package dev.tollgate.check.warmup;

import dev.tollgate.common.check.Attributes;
import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.descriptor.DescriptorNode;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.wire.WireFormat;
import dev.tollgate.limiter.rules.DescriptorBook;
import dev.tollgate.limiter.rules.StaticRuleBook;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import tools.jackson.databind.json.JsonMapper;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a warm-up sends: rules of its own, in a domain of its own, over a thousand keys, in the shapes the check path
 * has (a plan and a route on one key, a login by IP, a check by attributes, a cost above one) and both encodings
 * (the HTTP check's JSON, Envoy's {@code ShouldRateLimit}). The plan's bucket is wide, so most of its checks are
 * answered from leases as a busy key's are; the route's and the login's are narrow, so their checks reach the store,
 * deny, and are then answered from the deny cache. Every path a check can take is run, not only the fastest.
 */
final class WarmUpTraffic {

    static final String DOMAIN = "tollgate-warm-up";
    static final int KEYS = 1_000;
    private static final String PLAN = "warm";
    private static final String ROUTE = "/v1/warm";

    static final List<Rule> RULES = List.of(
            Rule.tokenBucket("warm-up-plan", DOMAIN, 1_000, 2_000).withMatch(new Match(PLAN, null)).withMaxCost(10),
            Rule.tokenBucket("warm-up-route", DOMAIN, 20, 40).withMatch(new Match(PLAN, ROUTE)),
            Rule.fixedWindow("warm-up-daily", DOMAIN, 100_000, 86_400).withMatch(new Match(PLAN, null)),
            Rule.slidingLog("warm-up-login", DOMAIN, 5, 60).withMatch(new Match(null, "/login")));

    private static final JsonMapper JSON = WireFormat.configure(JsonMapper.builder()).build();

    private WarmUpTraffic() {
    }

    static StaticRuleBook rules() {
        return new StaticRuleBook(RULES);
    }

    /** Envoy's descriptors for the plan and the route, each keyed by the account, as a route configuration sends them. */
    static DescriptorBook descriptors() {
        DescriptorBook book = new DescriptorBook();
        book.apply(List.of(new DescriptorDomain(DOMAIN, List.of(
                new DescriptorNode("plan", PLAN, null, null, List.of(new DescriptorNode("account", null, "warm-up-plan", "account", List.of()))),
                new DescriptorNode("route", ROUTE, null, null, List.of(new DescriptorNode("account", null, "warm-up-route", "account", List.of())))),
                1)));
        return book;
    }

    /**
     * The account of the {@code n}th check, spelled as callers spell theirs: plain ids kept as they are, and e-mail
     * addresses, paths and non-ASCII names that the store's key encoding escapes. A warm-up of one spelling left the
     * encoding's other branches to be compiled, and the check path that inlined it recompiled, under the first real keys.
     */
    static String account(int n) {
        int k = n % KEYS;
        return switch (k % 5) {
            case 0 -> "acct_" + k;
            case 1 -> "acct-" + k;
            case 2 -> "user." + k + "@example.com";
            case 3 -> "org:" + k + "/team";
            default -> "Kund\u00e9" + k;
        };
    }

    /** The {@code n}th check, as the HTTP check's body. */
    static CheckRequest check(int n) {
        String account = account(n);
        return switch (n % 4) {
            case 0 -> new CheckRequest(DOMAIN, List.of(CheckEntry.of("warm-up-plan", account, 1), CheckEntry.of("warm-up-route", account, 1)));
            // a few addresses, so that logins are denied within the first cycle, and then from the deny cache
            case 1 -> new CheckRequest(DOMAIN, List.of(CheckEntry.of("warm-up-login", "10.0.0." + (n % 16), 1)));
            case 2 -> CheckRequest.byAttributes(DOMAIN, Map.of(Attributes.PLAN, PLAN, Attributes.ROUTE, ROUTE, Attributes.API_KEY, account), 1);
            default -> new CheckRequest(DOMAIN, List.of(CheckEntry.of("warm-up-plan", account, 3), CheckEntry.of("warm-up-daily", account, 1)));
        };
    }

    /**
     * Every check of a cycle as a whole HTTP/1.1 request to {@code path} on {@code host}, ready to write: a warm-up
     * sends bytes, so that its own client costs the pod as little of the CPU it warms as can be.
     */
    static List<byte[]> httpRequests(String host, String path, String token) {
        List<byte[]> requests = new ArrayList<>(KEYS);
        for (int n = 0; n < KEYS; n++) {
            byte[] body = body(n);
            // the headers a gateway's client sends, in both spellings of their names (Envoy writes them lower case,
            // most HTTP/1.1 clients capitalized), so that the server's header parsing is warmed for either
            String head = n % 2 == 0
                    ? "POST " + path + " HTTP/1.1\r\nhost: " + host + "\r\ncontent-type: application/json\r\naccept: application/json\r\n"
                            + "authorization: Bearer " + token + "\r\nx-request-id: warm-up-" + n + "\r\ncontent-length: " + body.length + "\r\n\r\n"
                    : "POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: tollgate-warm-up\r\nContent-Type: application/json\r\n"
                            + "Accept: */*\r\nAuthorization: Bearer " + token + "\r\nConnection: keep-alive\r\nContent-Length: " + body.length
                            + "\r\n\r\n";
            byte[] headBytes = head.getBytes(StandardCharsets.US_ASCII);
            byte[] request = new byte[headBytes.length + body.length];
            System.arraycopy(headBytes, 0, request, 0, headBytes.length);
            System.arraycopy(body, 0, request, headBytes.length, body.length);
            requests.add(request);
        }
        return List.copyOf(requests);
    }

    /**
     * The {@code n}th check's JSON, spelled as gateways' clients spell theirs: compact, with whitespace between its
     * tokens, or with a cost of one left out. A warm-up of one spelling left the parser's other branches, and the
     * check route that inlined them, to be compiled again under the first real checks.
     */
    static byte[] body(int n) {
        CheckRequest check = check(n);
        return switch (n % 3) {
            case 0 -> JSON.writeValueAsBytes(check);
            case 1 -> JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(check);
            default -> JSON.writeValueAsBytes(withoutUnitCosts(check));
        };
    }

    private static CheckRequest withoutUnitCosts(CheckRequest check) {
        if (check.byAttributes()) {
            return BigDecimal.ONE.equals(check.cost()) ? new CheckRequest(check.domain(), null, check.attributes(), null) : check;
        }
        return new CheckRequest(check.domain(), check.entries().stream()
                .map(entry -> BigDecimal.ONE.equals(entry.cost()) ? new CheckEntry(entry.rule(), entry.key(), null) : entry)
                .toList());
    }

    /** Every call of a cycle to Envoy's rate limit service. */
    static List<RateLimitRequest> rlsRequests() {
        List<RateLimitRequest> requests = new ArrayList<>(KEYS);
        for (int n = 0; n < KEYS; n++) {
            requests.add(rlsRequest(n));
        }
        return List.copyOf(requests);
    }

    /** The {@code n}th call to Envoy's rate limit service: the plan's and the route's descriptors of one account. */
    private static RateLimitRequest rlsRequest(int n) {
        String account = account(n);
        RateLimitRequest.Builder request = RateLimitRequest.newBuilder().setDomain(DOMAIN).setHitsAddend(n % 4 == 3 ? 2 : 1)
                .addDescriptors(descriptor("plan", PLAN, account));
        if (n % 2 == 0) {
            request.addDescriptors(descriptor("route", ROUTE, account));
        }
        return request.build();
    }

    private static RateLimitDescriptor descriptor(String key, String value, String account) {
        return RateLimitDescriptor.newBuilder()
                .addEntries(RateLimitDescriptor.Entry.newBuilder().setKey(key).setValue(value))
                .addEntries(RateLimitDescriptor.Entry.newBuilder().setKey("account").setValue(account))
                .build();
    }
}
