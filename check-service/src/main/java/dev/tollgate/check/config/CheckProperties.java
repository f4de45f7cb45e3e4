package dev.tollgate.check.config;

import dev.tollgate.check.rules.WatchToken;
import dev.tollgate.limiter.LimiterSettings;
import dev.tollgate.limiter.after.CountAfterSettings;
import dev.tollgate.limiter.breaker.BreakerSettings;
import dev.tollgate.store.ClientSettings;
import jakarta.validation.Valid;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotEmpty;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Everything check-service reads from configuration, under {@code tollgate.*}: defaults in
 * {@link DefaultValue}, limits in constraints, so that a bad value stops the pod at start-up with a
 * message naming the property (Spring Boot's binder reports each violation as {@code Property: ..., Reason: ...}),
 * and the configuration metadata (and docs/configuration/check-service.md) show the defaults.
 */
@Validated
@ConfigurationProperties("tollgate")
public record CheckProperties(Redis redis, @Valid @DefaultValue Check check, @Valid @DefaultValue Rules rules,
                              @Valid @DefaultValue Breaker breaker, @Valid @DefaultValue Region region,
                              @Valid @DefaultValue Optimizations optimizations, @Valid @DefaultValue Pods pods,
                              @Valid @DefaultValue Readiness readiness, @Valid @DefaultValue Metrics metrics,
                              @Valid @DefaultValue Grpc grpc, @DefaultValue Access access, @Valid @DefaultValue Http http,
                              @Valid @DefaultValue Envoy envoy, @Valid @DefaultValue ForwardAuth forwardAuth,
                              @Valid @DefaultValue WarmUp warmUp, @Valid @DefaultValue CountAfter countAfter) {

    public CheckProperties {
        redis = redis == null ? new Redis(null) : redis;
    }

    /** The Envoy directory is the pod's one source of rules: two would disagree on which limit holds, and nothing could say which won. */
    @AssertTrue(message = "tollgate.envoy.config-dir cannot be set with tollgate.rules.service-url or tollgate.rules.file: it is the pod's rules")
    public boolean isOneRuleSource() {
        return !envoy.configured() || (!rules.watched() && !hasText(rules.file()));
    }

    /**
     * envoyproxy/ratelimit's configuration files, served as they are (see docs/envoy.md's table of its fields).
     *
     * @param configDir      a directory of its YAML files: the pod's rules and descriptor mappings, instead of
     *                       rules-service or a rules file
     * @param reloadInterval how often the directory is looked at; a changed directory is applied when every
     *                       file in it can be served, else the last good configuration stays
     */
    public record Envoy(String configDir, @DefaultValue("5s") @DurationMin(millis = 100) Duration reloadInterval) {

        public boolean configured() {
            return hasText(configDir);
        }
    }

    /**
     * The forward-auth check ({@code /v1/ratelimit:forward-auth}): what nginx's {@code auth_request}, Traefik's
     * ForwardAuth, APISIX's forward-auth and the like send, a subrequest carrying the original request's headers.
     *
     * @param domain         the domain checked when the subrequest names none ({@code ?domain=})
     * @param denyStatus     the status of a deny; nginx's {@code auth_request} passes only 2xx, 401 and 403
     *                       (anything else is its 500), so nginx asks for 403 with {@code ?deny_status=403}
     * @param trustedProxies the proxies in front of the gateway that append to {@code X-Forwarded-For}, the gateway
     *                       included: the client address is the entry that many from the right, or the
     *                       connection's address when the header holds fewer
     * @param realIpHeader   a header holding the client address itself (e.g. {@code X-Real-IP}), read before
     *                       {@code X-Forwarded-For} when set; unset: not read, since any client can send it
     * @param headers        which headers the attributes are read from
     * @param domains        a domain's own header names, instead of {@code headers}
     */
    public record ForwardAuth(String domain, @DefaultValue("429") @Min(400) @Max(499) int denyStatus,
                              @DefaultValue("1") @Min(0) @Max(64) int trustedProxies, String realIpHeader,
                              @Valid @DefaultValue Headers headers, Map<String, @Valid Headers> domains) {

        public ForwardAuth {
            domains = domains == null ? Map.of() : Map.copyOf(domains);
        }

        /** The header names for {@code domain}: its own when configured, else the shared ones. */
        public Headers headersFor(String domain) {
            return domain == null ? headers : domains.getOrDefault(domain, headers);
        }

        /**
         * Where each attribute of a check by attributes comes from. The first header of a list that is present wins.
         *
         * @param route  the original request's path (its query is dropped)
         * @param method the original request's method, carried as the attribute {@code method}
         * @param plan   the account's plan
         * @param apiKey the API key (the attribute {@code api_key})
         * @param user   the user
         * @param cost   what the request costs every rule found, a whole number; unset: every request costs 1
         */
        public record Headers(@DefaultValue({"X-Original-URI", "X-Forwarded-Uri"}) List<String> route,
                              @DefaultValue({"X-Original-Method", "X-Forwarded-Method"}) List<String> method,
                              @DefaultValue("X-Plan") String plan, @DefaultValue("X-Api-Key") String apiKey,
                              @DefaultValue("X-User") String user, String cost) {

            public Headers {
                route = route == null ? List.of() : List.copyOf(route);
                method = method == null ? List.of() : List.copyOf(method);
            }
        }
    }

    /**
     * The store's own client options; where the cluster is, credentials, TLS and the connect and handshake
     * timeouts are Spring Boot's {@code spring.data.redis.*}.
     *
     * @param commandTimeout a script slower than this counts as a store timeout (design: 5 ms)
     */
    public record Redis(Duration commandTimeout) {

        public Redis {
            commandTimeout = commandTimeout == null ? Duration.ofMillis(5) : commandTimeout;
            if (commandTimeout.isNegative() || commandTimeout.isZero()) {
                throw new IllegalArgumentException("tollgate.redis.command-timeout must be positive, was " + commandTimeout);
            }
        }

        /** The periodic slot-map refresh is spring.data.redis.lettuce.cluster.refresh.period's, kept on the client. */
        public ClientSettings settings() {
            return new ClientSettings(commandTimeout, null);
        }
    }

    /**
     * @param maxEntries entries one check may carry
     * @param deadline   the longest a check may take whatever the store does; unanswered key groups then get
     *                   their rule's fail mode (default: five times the command timeout)
     */
    public record Check(@DefaultValue("64") @Min(1) @Max(LimiterSettings.MAX_ENTRIES) int maxEntries,
                        @DurationMin(nanos = 1) @DurationMax(minutes = 1) Duration deadline) {

        /** The deadline in force: the one configured, else five command timeouts. */
        public Duration deadlineOr(Duration commandTimeout) {
            return deadline != null ? deadline : commandTimeout.multipliedBy(5);
        }
    }

    /**
     * @param failuresToOpen timeouts in a row that send a shard's checks to fallback (design: 3)
     * @param openFor        how long before one probe goes to the shard again (design: 1 s)
     */
    public record Breaker(@DefaultValue("3") @Min(1) int failuresToOpen, @DefaultValue("1s") @DurationMin(millis = 1) Duration openFor) {

        public BreakerSettings settings() {
            return new BreakerSettings(failuresToOpen, openFor);
        }
    }

    /**
     * Where a pod's rules come from: rules-service's watch feed when {@code serviceUrl} is set, else a
     * static file.
     *
     * @param file            a static rules file (YAML): how a pod runs without rules-service, like Envoy's ratelimit
     * @param serviceUrl      rules-service's base URL
     * @param token           a bearer token with scope ratelimit:watch
     * @param tokenFile       a file holding that token, read again for every poll, so that a renewed token
     *                        (a refreshed Secret volume, a Vault agent) is used without a restart
     * @param snapshotFile    where the last good snapshot is saved, so a restart survives a rules outage
     * @param connectTimeout  how long opening a connection to rules-service may take
     * @param pollTimeout     how long one watch call may take, answer included: longer than rules-service's
     *                        tollgate.watch.timeout (25 s), which is when it answers 304 for no change
     * @param maxSnapshotSize the largest snapshot a pod reads, as sent and once gunzipped; a larger one is
     *                        refused and counted, and the rules in force stay. No more than a twelfth of the
     *                        heap is read whatever this says: swapping a snapshot in takes about six times its size
     * @param sslBundle       the spring.ssl.bundle.* name whose trust (and key, for mutual TLS) an https
     *                        service URL is reached with; unset: the JVM's trust store
     * @param retry           how long a pod waits after a failed watch call
     * @param clientCredentials the watch token from an OAuth2 issuer, renewed before it expires: instead of
     *                        {@code token} or {@code tokenFile}
     * @param canary          a canary pod: it enforces each rule's canary version (PUT /v1/rules/{id}?rollout=canary)
     *                        in place of the rule until the canary is promoted or rolled back; other pods never do
     */
    public record Rules(String file, String serviceUrl, String token, String tokenFile,
                        @DefaultValue("tollgate-rules-snapshot.json") @NotBlank String snapshotFile,
                        @DefaultValue("2s") @DurationMin(millis = 1) Duration connectTimeout,
                        @DefaultValue("35s") @DurationMin(seconds = 1) Duration pollTimeout,
                        @DefaultValue("128MB") DataSize maxSnapshotSize, String sslBundle,
                        @Valid @DefaultValue Retry retry, @Valid @DefaultValue ClientCredentials clientCredentials,
                        @DefaultValue("false") boolean canary) {

        /** At most one way to the watch token. */
        @AssertTrue(message = "set at most one of tollgate.rules.token, tollgate.rules.token-file and tollgate.rules.client-credentials.*")
        public boolean isOneTokenSource() {
            int sources = (hasText(token) ? 1 : 0) + (hasText(tokenFile) ? 1 : 0)
                    + (clientCredentials != null && clientCredentials.configured() ? 1 : 0);
            return sources <= 1;
        }

        /** tollgate.rules.max-snapshot-size must be between 1KB and 2GB. */
        @AssertTrue(message = "tollgate.rules.max-snapshot-size must be between 1KB and 2GB")
        public boolean isMaxSnapshotSizeInRange() {
            return maxSnapshotSize == null || (maxSnapshotSize.toBytes() >= 1024 && maxSnapshotSize.toBytes() <= Integer.MAX_VALUE - 8);
        }

        public boolean watched() {
            return serviceUrl != null && !serviceUrl.isBlank();
        }

        /** The token from the file or the property, or none; client credentials are assembled with their client. */
        public WatchToken watchToken() {
            return hasText(tokenFile) ? WatchToken.file(Path.of(tokenFile)) : WatchToken.fixed(token);
        }

        /** Never the token itself: this record may end up in a log or a failure message. */
        @Override
        public String toString() {
            return "Rules[file=" + file + ", serviceUrl=" + serviceUrl + ", token=" + (hasText(token) ? "****" : "none")
                    + ", tokenFile=" + tokenFile + ", clientCredentials=" + clientCredentials + ", canary=" + canary + "]";
        }
    }

    /**
     * The watch token by OAuth2 client credentials (RFC 6749 section 4.4): the pod asks the region's identity
     * provider for it, and for a new one {@code clockSkew} before it expires. While the issuer is down the
     * pod goes on with the token it holds; once that expires, with the rules it holds.
     *
     * @param tokenUri         the issuer's token endpoint, e.g. https://login.example.com/realms/tollgate/protocol/openid-connect/token
     * @param clientId         the pods' client at the issuer
     * @param clientSecret     its secret (prefer clientSecretFile: it can be rotated without a restart)
     * @param clientSecretFile a file holding the secret, read again for every token request, so that a
     *                         rotated Secret volume is used without a restart
     * @param scope            the scope asked for, space-separated
     * @param audience         an {@code audience} parameter for issuers that need one to put rules-service in
     *                         the token's {@code aud} (Auth0, some Keycloak set-ups); unset: none sent
     * @param authentication   how the client authenticates at the token endpoint
     * @param clockSkew        how long before its expiry a token is renewed: longer than one watch call, so a
     *                         token never expires during a poll
     * @param timeout          connect and read timeout of one token request
     * @param sslBundle        the spring.ssl.bundle.* name whose trust an https issuer is reached with; unset:
     *                         the JVM's trust store
     */
    public record ClientCredentials(URI tokenUri, String clientId, String clientSecret, String clientSecretFile,
                                    @DefaultValue("ratelimit:watch") @NotBlank String scope, String audience,
                                    @DefaultValue("client-secret-basic") Authentication authentication,
                                    @DefaultValue("60s") @DurationMin(seconds = 0) Duration clockSkew,
                                    @DefaultValue("10s") @DurationMin(millis = 1) Duration timeout, String sslBundle) {

        /** The client authentication methods of RFC 6749 a pod can use. */
        public enum Authentication {
            CLIENT_SECRET_BASIC, CLIENT_SECRET_POST
        }

        /** Whether any of it is set: then all of it must be. */
        public boolean configured() {
            return tokenUri != null || hasText(clientId) || hasText(clientSecret) || hasText(clientSecretFile);
        }

        /** Client credentials need the token endpoint, the client id and one secret. */
        @AssertTrue(message = "tollgate.rules.client-credentials needs token-uri, client-id and one of client-secret or client-secret-file")
        public boolean isComplete() {
            return !configured() || (tokenUri != null && hasText(clientId) && hasText(clientSecret) != hasText(clientSecretFile));
        }

        /** Never the secret itself. */
        @Override
        public String toString() {
            return "ClientCredentials[tokenUri=" + tokenUri + ", clientId=" + clientId + ", clientSecret="
                    + (hasText(clientSecret) ? "****" : "none") + ", clientSecretFile=" + clientSecretFile + ", scope=" + scope + "]";
        }
    }

    private static boolean hasText(String value) {
        return value != null && !value.isBlank();
    }

    /**
     * Exponential backoff with full jitter: the n-th failed call in a row waits a random time between 0
     * and min(max, first × 2^n), so that pods which lost rules-service together do not return together.
     *
     * @param first the ceiling of the first wait
     * @param max   the ceiling of every wait
     */
    public record Retry(@DefaultValue("200ms") @DurationMin(millis = 1) Duration first,
                        @DefaultValue("10s") @DurationMin(millis = 1) Duration max) {

        /** tollgate.rules.retry.max must not be shorter than tollgate.rules.retry.first. */
        @AssertTrue(message = "tollgate.rules.retry.max must not be shorter than tollgate.rules.retry.first")
        public boolean isMaxAtLeastFirst() {
            return first == null || max == null || max.compareTo(first) >= 0;
        }
    }

    /**
     * The design's optimizations, each on unless switched off (for comparison, or for safety).
     *
     * @param localFirst a coarse bucket per key in the pod, in front of every global check
     * @param leases     lease tokens from the store and spend them in the pod
     * @param denyCache  after a deny with retry, deny the key in the pod until then
     * @param leaseWant  requests a pod asks to lease at once (design: 50)
     * @param leaseTtl   how long a pod may spend a lease (design: 1 s)
     */
    public record Optimizations(@DefaultValue("true") boolean localFirst, @DefaultValue("true") boolean leases,
                                @DefaultValue("true") boolean denyCache, @DefaultValue("50") @Min(1) @Max(dev.tollgate.limiter.Optimizations.MAX_LEASE_WANT) int leaseWant,
                                @DefaultValue("1s") @DurationMin(millis = 1) Duration leaseTtl) {

        public dev.tollgate.limiter.Optimizations settings() {
            return new dev.tollgate.limiter.Optimizations(localFirst, leases, denyCache, leaseWant, leaseTtl);
        }
    }

    /**
     * How rules with {@code counting: after} are counted (docs/rules.md, "Counting after").
     *
     * @param flushInterval  how often the pod sends its count-after counts to the store, one script call per shard;
     *                       a pod admits a key on its own at most the rule's rate over this between two flush answers,
     *                       which sizes the overshoot bound (rules-service's tollgate.count-after.flush-interval must
     *                       be the same, to state it); three intervals without a flush answer fail a fail-closed
     *                       count-after rule
     * @param maxPendingKeys the (rule, key) counts a pod holds between flushes; when full, a new key is checked
     *                       inline (a store call) until a flush empties the map
     * @param flushTimeout   how long one flush call may take before it is resent (with its id, so it counts once):
     *                       its own, not tollgate.redis.command-timeout, which is the check's; a failed call is resent
     *                       until its counts are five of these old, then dropped
     */
    public record CountAfter(@DefaultValue("100ms") @DurationMin(millis = 1) @DurationMax(seconds = 10) Duration flushInterval,
                             @DefaultValue("200000") @Min(1) int maxPendingKeys,
                             @DefaultValue("1s") @DurationMin(millis = 1) @DurationMax(minutes = 1) Duration flushTimeout) {

        public CountAfterSettings settings() {
            return CountAfterSettings.of(flushInterval, maxPendingKeys, flushTimeout);
        }
    }

    /**
     * The region's live pod count, kept by heartbeats in its Redis.
     *
     * @param id        this pod's id in the registry (default: the host name)
     * @param heartbeat how often the pod beats
     * @param ttl       a pod silent this long is no longer counted; longer than the heartbeat
     * @param min       the fewest pods the region runs, e.g. the HPA's minimum (the chart sets its
     *                  minReplicas): the count a pod divides fallback buckets and leases by before its
     *                  first heartbeat, and the least it ever uses
     */
    public record Pods(String id, @DefaultValue("1s") @DurationMin(millis = 1) Duration heartbeat,
                       @DefaultValue("3s") @DurationMin(millis = 1) Duration ttl, @DefaultValue("1") @Min(1) int min) {

        /** tollgate.pods.ttl must be longer than tollgate.pods.heartbeat, or every pod would drop out between beats. */
        @AssertTrue(message = "tollgate.pods.ttl must be longer than tollgate.pods.heartbeat")
        public boolean isTtlLongerThanHeartbeat() {
            return ttl == null || heartbeat == null || ttl.compareTo(heartbeat) > 0;
        }
    }

    /**
     * When a pod reports ready (the readiness group): once it enforces, i.e. it holds rules (when it
     * watches rules-service) and it has reached its counter store since it started.
     *
     * @param storeGrace how long a pod that has never reached its store stays not ready; after that it
     *                   becomes ready anyway and serves in fallback (fail modes), with
     *                   {@code tollgate_store_connected} at 0 and its alert firing. {@code 0} does not
     *                   wait for the store at all; a negative value (e.g. {@code -1}) waits for it forever
     */
    public record Readiness(@DefaultValue("30s") Duration storeGrace) {

        /** Whether a pod that never reached its store becomes ready once the grace is over. */
        public boolean fallbackAfterGrace() {
            return !storeGrace.isNegative();
        }
    }

    /**
     * The warm-up a pod runs before it reports ready: checks of rules of its own through the check port's and the gRPC
     * port's code, on an engine of its own whose Lettuce client reaches a loopback cluster answered from memory (never the
     * region's counters), until the JIT has compiled what they run. A pod the autoscaler adds then serves at full speed
     * from its first check instead of at a tenth of it for its first half minute. Its ports answer enforced checks
     * meanwhile; only readiness waits.
     *
     * @param enabled     whether a pod warms up before it reports ready (the default); off, it is ready as soon as it
     *                    enforces, and serves a fraction of its settled rate while the JIT compiles under real traffic
     * @param maxDuration the longest a warm-up runs: after it the pod is ready, warm or not
     * @param quietFor    the warm-up ends once the JIT compiled for less than {@code quietCompile} in this long
     * @param quietCompile the compile time within {@code quietFor} below which the JIT counts as settled
     * @param minChecks   the checks a warm-up sends before the JIT may count as settled: a JIT that has seen too little
     *                    has nothing to compile yet
     * @param protocols   what it warms: the plain check over HTTP, Envoy's rate limit service over gRPC (when its port is
     *                    open), or both. Each is code the JIT compiles on a pod's one or two cores; a fleet whose gateways
     *                    speak one of them warms that one and is ready sooner and warmer (docs/warm-up.md)
     */
    public record WarmUp(@DefaultValue("true") boolean enabled, @DefaultValue("60s") @DurationMin(seconds = 1) Duration maxDuration,
                         @DefaultValue("3s") @DurationMin(millis = 500) Duration quietFor,
                         @DefaultValue("100ms") @DurationMin(millis = 0) Duration quietCompile,
                         @DefaultValue("20000") @Min(0) int minChecks,
                         @DefaultValue({"http", "grpc"}) @NotEmpty Set<Protocol> protocols) {

        /** A gateway protocol the warm-up can run. */
        public enum Protocol {
            /** The plain check, {@code POST /v1/ratelimit:check} on the check port. */
            HTTP,
            /** Envoy's rate limit service on the gRPC port. */
            GRPC
        }
    }

    /**
     * @param name         this pod's region, as region budgets name it (e.g. us-east)
     * @param defaultShare the region's share of a key that has no budget yet: its slice of the default
     *                     split, or 1.0 when there is one region
     */
    public record Region(@DefaultValue("default") @NotBlank String name,
                         @DefaultValue("1.0") @DecimalMin(value = "0", inclusive = false) @DecimalMax("1") double defaultShare) {
    }

    /**
     * @param nearLimitRatio the share of a rule's limit used above which an allowed entry counts as
     *                       {@code near_limit} in {@code tollgate_rule_hits_total} (Envoy's NEAR_LIMIT_RATIO)
     */
    public record Metrics(@DefaultValue("0.8") @DecimalMin(value = "0", inclusive = false) @DecimalMax("1") double nearLimitRatio) {
    }

    /**
     * Envoy's rate limit service (RLS v3) on its own gRPC port.
     *
     * @param enabled        whether the port is opened
     * @param address        the address to listen on (default: every interface)
     * @param port           the port (0 picks a free one)
     * @param maxMessageSize the largest request accepted (the HTTP check's body limit); a larger one is
     *                       refused with RESOURCE_EXHAUSTED before it is read whole
     * @param reflection     whether gRPC server reflection is served (off: it lists every service and
     *                       message to anyone who can reach the port)
     */
    /**
     * @param maxConnectionAge      a connection is told to go away (GOAWAY) after this, so that Envoy's few long-lived
     *                              HTTP/2 connections spread over the pods the autoscaler adds
     * @param maxConnectionAgeGrace how long its calls in flight may still finish after that
     * @param maxConnectionIdle     a connection with no call for this long is closed (a gateway gone without a FIN)
     * @param maxCallsPerConnection calls in flight at once on one connection; more wait for a stream (HTTP/2's own limit)
     * @param keepAliveTime         the server pings a quiet connection this often, and drops it when a ping is not
     *                              answered within {@code keepAliveTimeout}
     * @param permitKeepAliveTime   the most often a client may ping; more often is answered with GOAWAY, as gRPC does
     * @param sslBundle             a {@code spring.ssl.bundle.*} whose key store holds the port's certificate: the port then
     *                              speaks TLS only; empty, plaintext (HTTP/2 without TLS, as a mesh's sidecar expects)
     */
    public record Grpc(@DefaultValue("true") boolean enabled, String address, @DefaultValue("8090") @Min(0) @Max(65_535) int port,
                       @DefaultValue("64KB") DataSize maxMessageSize, @DefaultValue("false") boolean reflection,
                       @DefaultValue("5m") Duration maxConnectionAge, @DefaultValue("30s") Duration maxConnectionAgeGrace,
                       @DefaultValue("5m") Duration maxConnectionIdle, @DefaultValue("1000") @Min(1) int maxCallsPerConnection,
                       @DefaultValue("1m") Duration keepAliveTime, @DefaultValue("20s") Duration keepAliveTimeout,
                       @DefaultValue("10s") Duration permitKeepAliveTime, String sslBundle) {

        /** The connection limits must be positive durations. */
        @AssertTrue(message = "tollgate.grpc.max-connection-age, -age-grace, -idle, keep-alive-time, -timeout and permit-keep-alive-time must be positive")
        public boolean isConnectionLimitsPositive() {
            for (Duration limit : new Duration[] {maxConnectionAge, maxConnectionAgeGrace, maxConnectionIdle, keepAliveTime, keepAliveTimeout,
                    permitKeepAliveTime}) {
                if (limit != null && (limit.isNegative() || limit.isZero())) {
                    return false;
                }
            }
            return true;
        }

        /** tollgate.grpc.max-message-size must be between 1KB and 2GB. */
        @AssertTrue(message = "tollgate.grpc.max-message-size must be between 1KB and 2GB")
        public boolean isMaxMessageSizeInRange() {
            return maxMessageSize == null || (maxMessageSize.toBytes() >= 1024 && maxMessageSize.toBytes() <= Integer.MAX_VALUE);
        }
    }

    /**
     * The HTTP port's connection limits: nothing a client holds open costs the pod for ever.
     *
     * @param idleTimeout    a keep-alive connection with no request for this long is closed; longer than the
     *                       clients' own pool idle (TollgateClient: 30 s), so a client never sends into a closing one
     * @param requestTimeout the longest a request's body may take to arrive whole, answered 408: a check is a few
     *                       hundred bytes, so a body declaring 1,000 bytes and sending 10 no longer holds a connection
     */
    public record Http(@DefaultValue("60s") @DurationMin(millis = 1) Duration idleTimeout,
                       @DefaultValue("2s") @DurationMin(millis = 1) Duration requestTimeout) {
    }

    /**
     * @param tokens the service tokens gateways present on the check ports (HTTP {@code Authorization:
     *               Bearer}, gRPC {@code authorization} metadata); several at once while one is rotated.
     *               None (the default): the ports are open to whoever the network lets reach them
     * @param readerTokens the tokens of those who may ask {@code POST /v1/ratelimit:explain} why a key is answered
     *                     as it is (support staff, their console, an operator's script); a gateway's service token
     *                     is not one. None (the default): explain answers 403 to everyone
     */
    public record Access(@DefaultValue List<String> tokens, @DefaultValue List<String> readerTokens) {

        public Access {
            tokens = tokens == null ? List.of() : List.copyOf(tokens);
            readerTokens = readerTokens == null ? List.of() : List.copyOf(readerTokens);
        }

        /** Never the tokens themselves: this record may end up in a log or a failure message. */
        @Override
        public String toString() {
            return "Access[" + tokens.size() + " token(s), " + readerTokens.size() + " reader token(s)]";
        }
    }
}
