package dev.tollgate.client;

/**
 * The names of every meter the client registers, in one list, and the tag values they take. Registered only when the
 * application gives the client a Micrometer {@code MeterRegistry} ({@link TollgateClient.Builder#meterRegistry}).
 *
 * <ul>
 *   <li>{@value #CHECKS}, a counter: every check once, tagged {@value #OUTCOME} ({@value #ALLOW} or {@value #DENY}:
 *       Tollgate's verdict; {@value #FALLBACK}: Tollgate gave none) and {@value #REASON} (why not: {@code timeout},
 *       {@code connect}, {@code no_pods}, {@code broken_answer}, {@code server_error}, {@code closed_rule_unavailable},
 *       {@code problem} for a 4xx, whose call fails with {@link TollgateProblemException}; {@code error} for any other
 *       failure of the call; {@value #NONE} for a verdict). Under {@link FailMode#ERROR} a fallback is the call's
 *       {@link TollgateUnavailableException}, counted the same</li>
 *   <li>{@value #CHECK_DURATION}, a timer: each check from its call to its answer, tagged {@value #OUTCOME}</li>
 *   <li>{@value #PODS_KNOWN} and {@value #PODS_DOWN}, gauges: the pods the pod source lists now, and how many of them
 *       are marked down (skipped until their probe)</li>
 * </ul>
 */
public final class ClientMetrics {

    public static final String CHECKS = "tollgate.client.checks";
    public static final String CHECK_DURATION = "tollgate.client.check.duration";
    public static final String PODS_KNOWN = "tollgate.client.pods.known";
    public static final String PODS_DOWN = "tollgate.client.pods.down";

    public static final String OUTCOME = "outcome";
    public static final String REASON = "reason";

    public static final String ALLOW = "allow";
    public static final String DENY = "deny";
    public static final String FALLBACK = "fallback";
    public static final String NONE = "none";
    public static final String PROBLEM = "problem";
    /** A call that failed for a reason of the client's own (a request it could not write): none is expected. */
    public static final String ERROR = "error";

    private ClientMetrics() {
    }

    /** The {@value #REASON} tag of a fallback. */
    public static String reason(ClientFallback.Reason reason) {
        switch (reason) {
            case DEADLINE:
                return "timeout";
            case UNREACHABLE:
                return "connect";
            case NO_PODS:
                return "no_pods";
            case BROKEN_ANSWER:
                return "broken_answer";
            case SERVER_ERROR:
                return "server_error";
            case CLOSED_RULE_UNAVAILABLE:
                return "closed_rule_unavailable";
            default:
                throw new IllegalArgumentException("no tag for " + reason);
        }
    }
}
