package dev.tollgate.gateway;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.route.RouteDefinitionRouteLocator;
import org.springframework.cloud.gateway.support.ConfigurationService;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@code RateLimiter} for Spring Cloud Gateway's {@code RequestRateLimiter} filter. Each route names the Tollgate
 * domain and rules its requests spend ({@code tollgate-rate-limiter.domain}, {@code tollgate-rate-limiter.rules}); the
 * filter's key resolver gives the key. Every answer carries Tollgate's RateLimit headers, which the filter copies onto
 * the response; a deny also carries {@code Retry-After} (Tollgate's wait, or 1 s when the deny is the gateway's own
 * fallback), and the filter answers it 429.
 */
public final class TollgateRateLimiter extends AbstractRateLimiter<TollgateRateLimiter.Config> {

    /** The prefix of a route's arguments for this limiter, as {@code redis-rate-limiter} is Redis's. */
    public static final String CONFIGURATION_PROPERTY_NAME = "tollgate-rate-limiter";
    static final String RETRY_AFTER = "Retry-After";

    private final Checks checks;

    public TollgateRateLimiter(Checks checks, ConfigurationService configurationService) {
        super(Config.class, CONFIGURATION_PROPERTY_NAME, configurationService);
        this.checks = checks;
    }

    @Override
    public Mono<Response> isAllowed(String routeId, String id) {
        Config config = configOf(routeId);
        List<CheckEntry> entries = new ArrayList<>(config.getRules().size());
        for (String rule : config.getRules()) {
            entries.add(CheckEntry.of(rule, id, config.getCost()));
        }
        return checks.check(new CheckRequest(config.getDomain(), entries)).map(TollgateRateLimiter::response);
    }

    private Config configOf(String routeId) {
        Config config = getConfig().get(routeId);
        if (config == null) {
            config = getConfig().get(RouteDefinitionRouteLocator.DEFAULT_FILTERS);
        }
        if (config == null || config.getDomain() == null || config.getRules().isEmpty()) {
            throw new IllegalArgumentException("route " + routeId + " uses the Tollgate rate limiter without saying what to check: give its "
                    + "RequestRateLimiter filter the arguments " + CONFIGURATION_PROPERTY_NAME + ".domain and " + CONFIGURATION_PROPERTY_NAME + ".rules");
        }
        return config;
    }

    private static Response response(LimitAnswer answer) {
        Map<String, String> headers = new LinkedHashMap<>(answer.headers());
        if (!answer.allowed() && !headers.containsKey(RETRY_AFTER)) {
            // a deny without Tollgate's wait (the gateway's own fallback) still tells the caller when to come back
            headers.put(RETRY_AFTER, "1");
        }
        return new Response(answer.allowed(), headers);
    }

    /**
     * One route's arguments. A mutable bean, not a record: Spring Cloud Gateway creates it empty and binds the route's
     * arguments onto it.
     */
    public static final class Config {

        private String domain;
        private List<String> rules = List.of();
        private int cost = 1;

        public String getDomain() {
            return domain;
        }

        public Config setDomain(String domain) {
            this.domain = domain;
            return this;
        }

        /** The rule ids the route's requests spend, all with the same key (one atomic script per key in Tollgate). */
        public List<String> getRules() {
            return rules;
        }

        public Config setRules(List<String> rules) {
            this.rules = rules == null ? List.of() : List.copyOf(rules);
            return this;
        }

        /** What one request costs in each rule (1 unless the route is heavier). */
        public int getCost() {
            return cost;
        }

        public Config setCost(int cost) {
            if (cost < 1) {
                throw new IllegalArgumentException(CONFIGURATION_PROPERTY_NAME + ".cost must be at least 1, was " + cost);
            }
            this.cost = cost;
            return this;
        }

        @Override
        public String toString() {
            return "Config[domain=" + domain + ", rules=" + rules + ", cost=" + cost + "]";
        }
    }
}
