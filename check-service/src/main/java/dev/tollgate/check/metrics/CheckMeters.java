package dev.tollgate.check.metrics;

/**
 * The names of every meter check-service registers itself, in one list: what the alerts, the dashboards and the
 * series catalogue name. The engine's are {@code LimiterMetrics}'s; Spring Boot's and Resilience4j's are theirs.
 */
public final class CheckMeters {

    /** The check's own route times its requests as WebFlux's observation would, so one series covers both ways in. */
    public static final String HTTP_REQUESTS = "http.server.requests";
    /** The check's own route's in-flight count (WebFlux's long task timer keeps the requests it answers itself). */
    public static final String HTTP_CHECKS_IN_FLIGHT = "tollgate.http.checks.in_flight";

    public static final String STORE_CONNECTED = "tollgate.store.connected";

    public static final String RULES_REVISION = "tollgate.rules.revision";
    public static final String RULES_WATCH_AGE = "tollgate.rules.watch.age";
    public static final String RULES_WATCH_ERRORS = "tollgate.rules.watch.errors";
    public static final String RULES_WATCH_REFUSED = "tollgate.rules.watch.refused";
    public static final String RULES_SNAPSHOTS_REJECTED = "tollgate.rules.snapshots.rejected";
    public static final String RULES_TOKEN_FAILURES = "tollgate.rules.token.failures";
    public static final String ENVOY_CONFIG_LOADS = "tollgate.envoy.config.loads";
    public static final String ENVOY_CONFIG_DOMAINS = "tollgate.envoy.config.domains";

    public static final String FORWARD_AUTH_CHECKS = "tollgate.forward_auth.checks";

    public static final String RLS_CALLS = "tollgate.rls.calls";
    public static final String RLS_IN_FLIGHT = "tollgate.rls.in_flight";
    public static final String RLS_DESCRIPTORS_UNMATCHED = "tollgate.rls.descriptors.unmatched";
    public static final String RLS_DESCRIPTOR_HITS = "tollgate.rls.descriptor.hits";
    public static final String RLS_LIMIT_OVERRIDES_IGNORED = "tollgate.rls.limit.overrides.ignored";

    private CheckMeters() {
    }
}
