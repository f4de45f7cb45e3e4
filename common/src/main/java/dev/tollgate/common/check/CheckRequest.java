package dev.tollgate.common.check;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * What a gateway asks: may this request spend {@code cost} from each entry's limit? Either the entries name
 * their rules and keys, or the request says what it is ({@code attributes}: plan, route, api_key, ip, user)
 * and the pod finds the rules that apply ({@link Attributes}), each keyed by its identity's attribute and
 * spent {@code cost}, exactly as if they had been named.
 *
 * @param attributes what the request is, instead of entries; null for a check by entries
 * @param cost       with attributes, what the request costs every rule found (1 when null); null with entries,
 *                   where each entry has its own
 */
public record CheckRequest(String domain, List<CheckEntry> entries, Map<String, String> attributes, BigDecimal cost) {

    public CheckRequest(String domain, List<CheckEntry> entries) {
        this(domain, entries, null, null);
    }

    /** A check by attributes, at {@code cost}. */
    public static CheckRequest byAttributes(String domain, Map<String, String> attributes, long cost) {
        return new CheckRequest(domain, null, attributes, BigDecimal.valueOf(cost));
    }

    public boolean byAttributes() {
        return attributes != null;
    }
}
