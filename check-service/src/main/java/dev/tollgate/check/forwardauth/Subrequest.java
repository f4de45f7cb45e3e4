package dev.tollgate.check.forwardauth;

import dev.tollgate.check.config.CheckProperties;
import dev.tollgate.common.check.Attributes;
import dev.tollgate.common.check.CheckProblem;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.limiter.rules.DescriptorBook;
import dev.tollgate.limiter.rules.Routes;
import org.springframework.http.HttpHeaders;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A gateway's subrequest read as a check by attributes. Its headers are the original request's, so every value is the
 * caller's, and none of them may fail the check (a 4xx that a gateway treats as its own error lets the request
 * through) or lift a limit:
 * <ul>
 *   <li>an identity value the store cannot key as it is (over 256 bytes, a control character) is keyed by its digest,
 *       as Envoy's descriptors are ({@link DescriptorBook#storable});</li>
 *   <li>a missing identity is keyed by the digest of an empty value: every request without an API key shares one
 *       counter per rule, so leaving the header out buys the whole of one limit shared with everyone else who left
 *       it out, never a limit of one's own, and never no limit;</li>
 *   <li>a plan that cannot be a rule's (too long, control characters) is keyed the same way, and so matches no plan's
 *       rule, as an unknown plan does: the plan must come from the gateway's own authentication, not the client;</li>
 *   <li>the route is normalized before it is bounded ({@link Routes#bounded}) and its control characters are
 *       percent-encoded, so no spelling the backend serves under a route steps around the route's rule.</li>
 * </ul>
 * Only what the gateway's configuration sends can make it invalid: no domain, a cost header that is no whole number.
 *
 * @param request  the check, when it can be made
 * @param problems why it cannot: operator-made, answered as a deny
 */
record Subrequest(Optional<CheckRequest> request, List<CheckProblem> problems) {

    static final String METHOD = "method";
    private static final String HEX = "0123456789ABCDEF";

    static Subrequest read(String domain, HttpHeaders headers, String remoteAddress, CheckProperties.ForwardAuth settings) {
        CheckProperties.ForwardAuth.Headers names = settings.headersFor(domain);
        Map<String, String> attributes = new HashMap<>();
        first(headers, names.route()).ifPresent(route -> attributes.put(Attributes.ROUTE, route(route)));
        first(headers, names.method()).ifPresent(method -> attributes.put(METHOD, DescriptorBook.storable(method)));
        first(headers, names.plan()).ifPresent(plan -> attributes.put(Attributes.PLAN, DescriptorBook.storable(plan)));
        attributes.put(Attributes.API_KEY, DescriptorBook.storable(first(headers, names.apiKey()).orElse("")));
        attributes.put(Attributes.USER, DescriptorBook.storable(first(headers, names.user()).orElse("")));
        attributes.put(Attributes.IP, DescriptorBook.storable(clientAddress(headers, remoteAddress, settings)));

        List<CheckProblem> problems = new ArrayList<>();
        long cost = 1;
        Optional<String> costHeader = first(headers, names.cost());
        if (costHeader.isPresent()) {
            cost = cost(costHeader.get());
            if (cost < 1) {
                problems.add(CheckProblem.ofRequest("cost", "the header " + names.cost()
                        + " must hold a whole number between 1 and " + Integer.MAX_VALUE));
            }
        }
        if (domain == null || domain.isBlank()) {
            problems.add(CheckProblem.ofRequest("domain", "is required: ?domain= or tollgate.forward-auth.domain"));
        }
        return problems.isEmpty()
                ? new Subrequest(Optional.of(CheckRequest.byAttributes(domain, Map.copyOf(attributes), cost)), List.of())
                : new Subrequest(Optional.empty(), List.copyOf(problems));
    }

    /**
     * The client's address: the configured real-IP header when set and sent, else the {@code X-Forwarded-For} entry
     * {@code trustedProxies} from the right (each trusted proxy appended the address it was reached from, so that entry
     * was written by the outermost of them), else the connection's address. Entries left of it are the client's to
     * write and never read.
     */
    static String clientAddress(HttpHeaders headers, String remoteAddress, CheckProperties.ForwardAuth settings) {
        if (settings.realIpHeader() != null && !settings.realIpHeader().isBlank()) {
            Optional<String> real = first(headers, List.of(settings.realIpHeader()));
            if (real.isPresent()) {
                return real.get();
            }
        }
        int hops = settings.trustedProxies();
        List<String> forwarded = headers.getOrEmpty("X-Forwarded-For");
        if (hops > 0 && !forwarded.isEmpty()) {
            List<String> entries = new ArrayList<>();
            for (String line : forwarded) {
                for (String entry : line.split(",", -1)) {
                    entries.add(entry.strip());
                }
            }
            if (entries.size() >= hops) {
                String address = entries.get(entries.size() - hops);
                if (!address.isEmpty()) {
                    return address;
                }
            }
        }
        return remoteAddress == null ? "" : remoteAddress;
    }

    /** The path without its query, normalized, bounded, with control characters percent-encoded. */
    static String route(String value) {
        StringBuilder encoded = null;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isISOControl(c)) {
                if (encoded == null) {
                    encoded = new StringBuilder(value.length() + 8).append(value, 0, i);
                }
                encoded.append('%').append(HEX.charAt((c >> 4) & 0xF)).append(HEX.charAt(c & 0xF));
            } else if (encoded != null) {
                encoded.append(c);
            }
        }
        return Routes.bounded(encoded == null ? value : encoded.toString(), Attributes.MAX_VALUE);
    }

    /** A whole number between 1 and {@code Integer.MAX_VALUE}, judged by its digits; 0 when it is none. */
    static long cost(String value) {
        String digits = value.strip();
        if (digits.isEmpty() || digits.length() > 10) {
            return 0;
        }
        long cost = 0;
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (c < '0' || c > '9') {
                return 0;
            }
            cost = cost * 10 + (c - '0');
        }
        return cost <= Integer.MAX_VALUE ? cost : 0;
    }

    /** The first of the headers that is present and not empty; a repeated header's first line. */
    private static Optional<String> first(HttpHeaders headers, List<String> names) {
        for (String name : names) {
            String value = headers.getFirst(name);
            if (value != null && !value.isEmpty()) {
                return Optional.of(value);
            }
        }
        return Optional.empty();
    }

    private static Optional<String> first(HttpHeaders headers, String name) {
        return name == null || name.isBlank() ? Optional.empty() : first(headers, List.of(name));
    }
}
