package dev.tollgate.gateway;

import dev.tollgate.common.check.Attributes;
import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.gateway.key.AttributeSource;
import dev.tollgate.gateway.key.RequestAttributes;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.route.RouteDefinitionRouteLocator;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@code RateLimiter} for Spring Cloud Gateway's {@code RequestRateLimiter} filter. Each route names its Tollgate
 * domain ({@code tollgate-rate-limiter.domain}) and either the rules its requests spend
 * ({@code tollgate-rate-limiter.rules}, keyed by the filter's key resolver) or where the request's attributes are read
 * ({@code tollgate-rate-limiter.attributes.plan}, {@code .route}, {@code .api-key}, {@code .ip}, {@code .user}; see
 * {@link AttributeSource}), in which case Tollgate finds the rules whose match covers the request's plan and route, so
 * per-plan limits on one route are configuration only. Every answer carries Tollgate's RateLimit headers, which the
 * filter copies onto the response; a deny also carries {@code Retry-After} (Tollgate's wait, or 1 s when the deny is
 * the gateway's own fallback), and the filter answers it 429.
 */
public final class TollgateRateLimiter extends AbstractRateLimiter<TollgateRateLimiter.Config> {

    /** The prefix of a route's arguments for this limiter, as {@code redis-rate-limiter} is Redis's. */
    public static final String CONFIGURATION_PROPERTY_NAME = "tollgate-rate-limiter";
    static final String RETRY_AFTER = "Retry-After";

    private final Checks checks;
    private final RequestAttributes attributes;

    public TollgateRateLimiter(Checks checks, RequestAttributes attributes, ConfigurationService configurationService) {
        super(Config.class, CONFIGURATION_PROPERTY_NAME, configurationService);
        this.checks = checks;
        this.attributes = attributes;
    }

    @Override
    public Mono<Response> isAllowed(String routeId, String id) {
        Config config = configOf(routeId);
        if (config.byAttributes()) {
            // Spring Cloud Gateway hands a RateLimiter no exchange: ExchangeInContext puts it in the Reactor context, and
            // the attributes key resolver has usually read the attributes already
            return Mono.deferContextual(context -> {
                ServerWebExchange exchange = context.getOrDefault(ExchangeInContext.KEY, null);
                if (exchange == null) {
                    return Mono.error(new IllegalStateException("route " + routeId + " checks by attributes, but the request's exchange is not "
                            + "in the Reactor context (the tollgateExchangeInContext web filter is missing)"));
                }
                return attributes.of(exchange, config.getAttributes().sources());
            }).flatMap(read -> checks.check(CheckRequest.byAttributes(config.getDomain(), read, config.getCost())))
                    .map(TollgateRateLimiter::response);
        }
        List<CheckEntry> entries = new ArrayList<>(config.getRules().size());
        for (String rule : config.getRules()) {
            entries.add(CheckEntry.of(rule, id, config.getCost()));
        }
        return checks.check(new CheckRequest(config.getDomain(), entries)).map(TollgateRateLimiter::response);
    }

    /** The attributes the route's limiter reads, by attribute name; empty when the route names its rules. */
    public Map<String, AttributeSource> sourcesOf(String routeId) {
        Config config = configOf(routeId);
        return config.byAttributes() ? config.getAttributes().sources() : Map.of();
    }

    private Config configOf(String routeId) {
        Config config = routeId == null ? null : getConfig().get(routeId);
        if (config == null) {
            config = getConfig().get(RouteDefinitionRouteLocator.DEFAULT_FILTERS);
        }
        String args = CONFIGURATION_PROPERTY_NAME + ".";
        if (config == null || config.getDomain() == null || (config.getRules().isEmpty() && !config.byAttributes())) {
            throw new IllegalArgumentException("route " + routeId + " uses the Tollgate rate limiter without saying what to check: give its "
                    + "RequestRateLimiter filter the arguments " + args + "domain and either " + args + "rules (rule ids) or "
                    + args + "attributes.* (where the plan, route, api-key, ip and user are read)");
        }
        if (!config.getRules().isEmpty() && config.byAttributes()) {
            throw new IllegalArgumentException("route " + routeId + " gives the Tollgate rate limiter both " + args + "rules and " + args
                    + "attributes.*: a check names its rules or says what the request is, not both; remove one");
        }
        if (config.byAttributes() && !config.getAttributes().readsAnIdentity()) {
            throw new IllegalArgumentException("route " + routeId + " checks by attributes without an identity: every rule is keyed by its "
                    + "api_key, ip or user, so give " + args + "attributes.api-key, .ip or .user a source");
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
        private AttributeSources attributes = new AttributeSources();

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

        /** Where a check by attributes reads the request's attributes; none given, the route names its rules. */
        public AttributeSources getAttributes() {
            return attributes;
        }

        public Config setAttributes(AttributeSources attributes) {
            this.attributes = attributes == null ? new AttributeSources() : attributes;
            return this;
        }

        boolean byAttributes() {
            return !attributes.sources().isEmpty();
        }

        @Override
        public String toString() {
            return "Config[domain=" + domain + ", rules=" + rules + ", attributes=" + attributes.sources().values() + ", cost=" + cost + "]";
        }
    }

    /**
     * Each attribute's source, as the route writes it ({@code header:X-Plan}, {@code claim:plan}, {@code route-id},
     * {@code path}, {@code remote-address}, {@code principal}); refused when bound if it is not one.
     */
    public static final class AttributeSources {

        private static final String PREFIX = CONFIGURATION_PROPERTY_NAME + ".attributes.";
        private final Map<String, AttributeSource> sources = new LinkedHashMap<>();

        public String getPlan() {
            return spec(Attributes.PLAN);
        }

        public void setPlan(String spec) {
            set(Attributes.PLAN, "plan", spec);
        }

        public String getRoute() {
            return spec(Attributes.ROUTE);
        }

        public void setRoute(String spec) {
            set(Attributes.ROUTE, "route", spec);
        }

        public String getApiKey() {
            return spec(Attributes.API_KEY);
        }

        public void setApiKey(String spec) {
            set(Attributes.API_KEY, "api-key", spec);
        }

        public String getIp() {
            return spec(Attributes.IP);
        }

        public void setIp(String spec) {
            set(Attributes.IP, "ip", spec);
        }

        public String getUser() {
            return spec(Attributes.USER);
        }

        public void setUser(String spec) {
            set(Attributes.USER, "user", spec);
        }

        Map<String, AttributeSource> sources() {
            return Collections.unmodifiableMap(sources);
        }

        boolean readsAnIdentity() {
            return sources.containsKey(Attributes.API_KEY) || sources.containsKey(Attributes.IP) || sources.containsKey(Attributes.USER);
        }

        private String spec(String attribute) {
            AttributeSource source = sources.get(attribute);
            return source == null ? null : source.toString();
        }

        private void set(String attribute, String argument, String spec) {
            if (spec == null) {
                sources.remove(attribute);
            } else {
                sources.put(attribute, AttributeSource.parse(PREFIX + argument, spec));
            }
        }
    }
}
