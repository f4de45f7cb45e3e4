package dev.tollgate.client;

import dev.tollgate.client.affinity.PodPicker;
import dev.tollgate.client.affinity.PodSource;
import dev.tollgate.common.check.Attributes;
import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.ProblemCodes;
import dev.tollgate.common.check.RateLimitHeaders;
import dev.tollgate.common.wire.WireFormat;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;
import reactor.util.Logger;
import reactor.util.Loggers;
import reactor.util.context.ContextView;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.ConnectException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A client of {@code POST /v1/ratelimit:check}. Every call answers within its deadline: Tollgate's answer, or the
 * client's {@link FailMode} marked as a {@link ClientFallback}. Connections are pooled and kept alive per pod.
 *
 * <p>With several pods ({@link Builder#pods}, {@link Builder#podSource}) a check goes to its key's pod by rendezvous
 * hashing of the first entry's key (a check by attributes, {@link CheckRequest#byAttributes(String, Map, long)}: its
 * {@code api_key}, else {@code user}, else {@code ip}), so that pod's leases and remembered denies serve the key. Each attempt at a pod
 * runs within what is left of the check's deadline, and a pod that fails one (refuses or does not complete the
 * connect within the connect timeout, half the deadline by default; has not begun to answer by the deadline; answers
 * a server error) is marked down: every later check skips it for its key's next pod, until one check probes it
 * ({@link PodPicker}). A check that may have reached a pod is never sent to a second one: that could spend it twice;
 * it is answered by the fail mode. So a black-holed pod costs its keys one connect timeout, and a pod that accepts but
 * never answers one deadline, not one each.
 *
 * <p>Optional: meters ({@link ClientMetrics}, through {@link Builder#meterRegistry}), the caller's W3C
 * {@code traceparent} sent on the check (the Reactor context's {@link #TRACEPARENT}, else {@link Builder#traceparent}),
 * and {@link #health()}. With no pod known it warns at most every {@value #NO_PODS_WARNING_EVERY_S} s.
 *
 * <p>Thread-safe; one per application. {@link #checkBlocking} must not be called on an event-loop thread.
 */
public final class TollgateClient implements AutoCloseable {

    /**
     * The Reactor context key of the caller's W3C {@code traceparent}, sent as that header on the check:
     * {@code client.check(request).contextWrite(Context.of(TollgateClient.TRACEPARENT, traceparent))}. Wins over
     * {@link Builder#traceparent}; a value that is not a traceparent is not sent.
     */
    public static final String TRACEPARENT = "tollgate.traceparent";

    static final String CHECK_PATH = "/v1/ratelimit:check";
    static final long NO_PODS_WARNING_EVERY_S = 30;
    private static final Logger log = Loggers.getLogger(TollgateClient.class);
    private static final byte[] NO_BODY = new byte[0];
    private static final List<String> AFFINITY_ATTRIBUTES = List.of(Attributes.API_KEY, Attributes.USER, Attributes.IP);

    private final ClientSettings settings;
    private final PodSource pods;
    private final PodPicker picker;
    private final LongSupplier nanoTime;
    private final ConnectionProvider connections;
    private final LoopResources loops;
    private final HttpClient http;
    private final JsonMapper json;
    private final Fallbacks fallbacks;
    private final ClientMeters meters;
    private final Supplier<String> traceparents;
    private final OccasionalWarning noPodsWarning;
    private final LongAdder connectionsOpened = new LongAdder();

    private TollgateClient(ClientSettings settings, PodSource pods, String token, MeterRegistry meterRegistry,
                           Supplier<String> traceparents) {
        this.settings = settings;
        this.pods = pods;
        this.nanoTime = System::nanoTime;
        this.picker = new PodPicker(pods, settings.podDownFor(), settings.podDownForAtMost(), nanoTime);
        this.connections = ConnectionProvider.builder("tollgate-client")
                .maxConnections(settings.maxConnectionsPerPod())
                .pendingAcquireTimeout(settings.deadline())
                .maxIdleTime(settings.idleTimeout())
                .evictInBackground(settings.idleTimeout())
                .build();
        // its own event loops, not Reactor Netty's global ones: a host application (a Spring context closing, a
        // second gateway in one JVM) that disposes the global loops must not take the client's connections with it
        this.loops = LoopResources.create("tollgate-client", settings.eventLoopThreads(), true);
        this.http = HttpClient.create(connections)
                .runOn(loops)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) settings.connectTimeout().toMillis())
                .option(ChannelOption.TCP_NODELAY, true)
                .keepAlive(true)
                .headers(headers -> {
                    headers.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                            .set(HttpHeaderNames.ACCEPT, HttpHeaderValues.APPLICATION_JSON);
                    if (token != null) {
                        // check-service's tollgate.access.tokens: without it a pod that has them answers 401
                        headers.set(HttpHeaderNames.AUTHORIZATION, "Bearer " + token);
                    }
                })
                .doOnChannelInit((observer, channel, address) -> connectionsOpened.increment());
        // lenient on reading: a newer check-service that adds a field must not break an older client
        this.json = WireFormat.configure(JsonMapper.builder())
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .build();
        this.fallbacks = new Fallbacks(settings.failMode());
        // MicrometerClientMeters is loaded only here, with a registry: without Micrometer the client never names it
        this.meters = meterRegistry == null ? ClientMeters.NONE : new MicrometerClientMeters(meterRegistry, picker);
        this.traceparents = traceparents;
        this.noPodsWarning = new OccasionalWarning(Duration.ofSeconds(NO_PODS_WARNING_EVERY_S), nanoTime);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The check, within the client's deadline. Completes with a result, or fails only as documented on {@link Fallbacks}. */
    public Mono<CheckResult> check(CheckRequest request) {
        return check(request, settings.deadline());
    }

    /**
     * The check, within the given deadline (connect, send and answer together, every pod tried included). A pod that
     * has not begun to answer by then is marked down, so a deadline far below the pods' answer time moves keys off
     * healthy pods.
     */
    public Mono<CheckResult> check(CheckRequest request, Duration deadline) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(deadline, "deadline");
        return Mono.deferContextual(context -> {
            long started = nanoTime.getAsLong();
            Call call = new Call(json.writeValueAsBytes(request), traceparent(context), deadline, started + deadline.toNanos());
            List<URI> order = picker.order(affinityKey(request));
            Mono<CheckResult> answer = order.isEmpty()
                    ? fallbacks.answer(noPods(), null, null)
                    : attempt(call, order, 0).onErrorResume(CallFailure.class, failure -> fallbacks.answer(failure.why(), failure, failure.pod()));
            return answer.doOnNext(result -> counted(result, started))
                    .doOnError(failure -> countedFailure(failure, started));
        });
    }

    /** The check on the calling thread, within the client's deadline; never on an event-loop thread. */
    public CheckResult checkBlocking(CheckRequest request) {
        return check(request).block();
    }

    /** The check on the calling thread, within the given deadline. */
    public CheckResult checkBlocking(CheckRequest request, Duration deadline) {
        return check(request, deadline).block();
    }

    /** The pods known and marked down now: no pod known means every check is the fail mode's. */
    public ClientHealth health() {
        return new ClientHealth(picker.known(), picker.down(), pods.describe());
    }

    /** TCP connections opened since the client started: flat while the pool keeps them alive. */
    public long connectionsOpened() {
        return connectionsOpened.sum();
    }

    public ClientSettings settings() {
        return settings;
    }

    @Override
    public void close() {
        meters.close();
        connections.disposeLater().block(Duration.ofSeconds(5));
        loops.disposeLater(Duration.ZERO, Duration.ofSeconds(2)).block(Duration.ofSeconds(5));
        pods.close();
    }

    /** One check's request as sent to each pod it tries, and when its time is up. */
    private record Call(byte[] body, String traceparent, Duration deadline, long deadlineAt) {
    }

    private String traceparent(ContextView context) {
        Object given = context.getOrDefault(TRACEPARENT, null);
        if (given == null && traceparents != null) {
            given = traceparents.get();
        }
        return given instanceof String ? Traceparent.valid((String) given) : null;
    }

    private ClientFallback noPods() {
        long checks = noPodsWarning.occurred();
        if (checks > 0) {
            log.warn("no check-service pod is known from {}: {} check(s) answered by the fail mode {} since the last warning, "
                    + "the limits are not enforced", pods.describe(), checks, settings.failMode());
        }
        return new ClientFallback(ClientFallback.Reason.NO_PODS, "no check-service pod is known from " + pods.describe());
    }

    private void counted(CheckResult result, long started) {
        long nanos = nanoTime.getAsLong() - started;
        if (result.fallback() == null) {
            meters.checked(result.allowed() ? ClientMetrics.ALLOW : ClientMetrics.DENY, ClientMetrics.NONE, nanos);
        } else {
            meters.checked(ClientMetrics.FALLBACK, ClientMetrics.reason(result.fallback().reason()), nanos);
        }
    }

    private void countedFailure(Throwable failure, long started) {
        long nanos = nanoTime.getAsLong() - started;
        if (failure instanceof TollgateUnavailableException) {
            meters.checked(ClientMetrics.FALLBACK, ClientMetrics.reason(((TollgateUnavailableException) failure).reason()), nanos);
        } else if (failure instanceof TollgateProblemException) {
            meters.checked(ClientMetrics.FALLBACK, ClientMetrics.PROBLEM, nanos);
        } else {
            meters.checked(ClientMetrics.FALLBACK, ClientMetrics.ERROR, nanos);
        }
    }

    /**
     * One pod, within what is left of the check's deadline: the attempt itself fails at the deadline, so the pod that
     * left it unanswered is the one marked down. A failure that surely spent nothing moves on to the key's next pod.
     */
    private Mono<CheckResult> attempt(Call call, List<URI> order, int index) {
        URI pod = order.get(index);
        long left = call.deadlineAt() - nanoTime.getAsLong();
        if (left <= 0) {
            return Mono.error(new CallFailure(new ClientFallback(ClientFallback.Reason.DEADLINE, "no answer within "
                    + call.deadline().toMillis() + " ms: none left to try " + pod), false, false, pod, null));
        }
        AtomicBoolean answering = new AtomicBoolean();
        return send(pod, call, answering)
                .timeout(Duration.ofNanos(left))
                .onErrorMap(failure -> !(failure instanceof CallFailure), failure -> failure instanceof TimeoutException
                        ? late(pod, call, answering.get(), failure)
                        : transportFailure(pod, failure))
                .flatMap(answer -> read(answer, pod))
                .onErrorResume(CallFailure.class, failure -> {
                    if (failure.podDown()) {
                        picker.failed(pod);
                    }
                    if (failure.nothingSpent() && index + 1 < order.size()) {
                        return attempt(call, order, index + 1);
                    }
                    return Mono.error(failure);
                });
    }

    private record Answer(int status, RateLimitHeaders headers, byte[] body) {
    }

    private Mono<Answer> send(URI pod, Call call, AtomicBoolean answering) {
        HttpClient client = call.traceparent() == null ? http
                : http.headers(headers -> headers.set(Traceparent.HEADER, call.traceparent()));
        return client.post()
                .uri(pod.resolve(CHECK_PATH))
                .send(Mono.fromSupplier(() -> Unpooled.wrappedBuffer(call.body())))
                .responseSingle((response, content) -> {
                    answering.set(true);
                    return content.asByteArray()
                            .defaultIfEmpty(NO_BODY)
                            .map(bytes -> new Answer(response.status().code(), headers(response.responseHeaders()), bytes));
                });
    }

    private static RateLimitHeaders headers(HttpHeaders headers) {
        return new RateLimitHeaders(headers.get(RateLimitHeaders.POLICY), headers.get(RateLimitHeaders.RATE_LIMIT),
                headers.get(RateLimitHeaders.RETRY_AFTER));
    }

    /**
     * The deadline passed during the attempt. A pod silent on a connection (a frozen JVM, a dead node behind a
     * kept-alive connection) raises no error of its own: unless its deadline marks it, each of its keys' checks pays
     * one. One that had begun to answer is slow, not gone, and keeps its keys.
     */
    private static CallFailure late(URI pod, Call call, boolean answering, Throwable timeout) {
        return new CallFailure(new ClientFallback(ClientFallback.Reason.DEADLINE, "no answer within " + call.deadline().toMillis()
                + " ms from " + pod + (answering ? " (its answer had begun)" : "")), false, !answering, pod, timeout);
    }

    /** A failure before any answer: retried on the next pod only when the check surely never left the client. */
    private static CallFailure transportFailure(URI pod, Throwable failure) {
        boolean neverConnected = failure instanceof ConnectException || failure instanceof ConnectTimeoutException
                || failure.getCause() instanceof ConnectException;
        ClientFallback why = new ClientFallback(neverConnected ? ClientFallback.Reason.UNREACHABLE : ClientFallback.Reason.BROKEN_ANSWER,
                pod + ": " + failure);
        return new CallFailure(why, neverConnected, true, pod, failure);
    }

    private Mono<CheckResult> read(Answer answer, URI pod) {
        int status = answer.status();
        if (status == 200) {
            try {
                CheckResult result = CheckResult.answered(json.readValue(answer.body(), CheckResponse.class), answer.headers(), pod);
                picker.answered(pod);
                return Mono.just(result);
            } catch (JacksonException notACheckAnswer) {
                return Mono.error(new CallFailure(new ClientFallback(ClientFallback.Reason.BROKEN_ANSWER,
                        pod + " answered 200 with a body that is not a check answer: " + notACheckAnswer.getOriginalMessage()), false, true, pod,
                        notACheckAnswer));
            }
        }
        String code = problemCode(answer.body());
        if (status >= 400 && status < 500) {
            // the pod works; the request is what is wrong
            picker.answered(pod);
            return Mono.error(new TollgateProblemException(status, code, problemDetail(answer.body()),
                    new String(answer.body(), StandardCharsets.UTF_8)));
        }
        if (ProblemCodes.failedClosed(code)) {
            picker.answered(pod);
            return Mono.error(new CallFailure(new ClientFallback(ClientFallback.Reason.CLOSED_RULE_UNAVAILABLE, pod + ": " + status + " " + code),
                    false, false, pod, null));
        }
        // a pod without rules spent nothing and says so: its key's next pod may answer
        boolean nothingSpent = ProblemCodes.RULES_UNAVAILABLE.equals(code);
        return Mono.error(new CallFailure(new ClientFallback(ClientFallback.Reason.SERVER_ERROR, pod + ": " + status + " " + code),
                nothingSpent, true, pod, null));
    }

    private String problemCode(byte[] body) {
        return problemField(body, "code");
    }

    private String problemDetail(byte[] body) {
        return problemField(body, "detail");
    }

    private String problemField(byte[] body, String field) {
        if (body.length == 0) {
            return null;
        }
        try {
            JsonNode node = json.readTree(body);
            JsonNode value = node == null ? null : node.get(field);
            return value == null || !value.isString() ? null : value.asString();
        } catch (JacksonException notJson) {
            return null;
        }
    }

    /**
     * The key whose pod answers: the first entry's (a gateway's entries normally share the account key); in a check by
     * attributes the identity the found rules are most likely keyed by, {@code api_key}, else {@code user}, else
     * {@code ip}, so a key's checks by attributes and by name meet on one pod and share its lease and remembered denies.
     */
    static String affinityKey(CheckRequest request) {
        if (request.byAttributes()) {
            Map<String, String> attributes = request.attributes();
            for (String identity : AFFINITY_ATTRIBUTES) {
                String key = attributes.get(identity);
                if (key != null) {
                    return key;
                }
            }
            return "";
        }
        List<CheckEntry> entries = request.entries();
        if (entries == null || entries.isEmpty() || entries.get(0) == null || entries.get(0).key() == null) {
            return "";
        }
        return entries.get(0).key();
    }

    /** How to reach Tollgate and what to answer when it cannot be reached; see {@link ClientSettings} for defaults. */
    public static final class Builder {

        private PodSource pods;
        private Duration deadline = ClientSettings.DEFAULTS.deadline();
        private FailMode failMode = ClientSettings.DEFAULTS.failMode();
        private int maxConnectionsPerPod = ClientSettings.DEFAULTS.maxConnectionsPerPod();
        /** Null unless set: ClientSettings derives it from the deadline, whatever order the two are set in. */
        private Duration connectTimeout;
        private Duration idleTimeout = ClientSettings.DEFAULTS.idleTimeout();
        private Duration podDownFor = ClientSettings.DEFAULTS.podDownFor();
        /** Null unless set: ClientSettings derives it from podDownFor. */
        private Duration podDownForAtMost;
        private MeterRegistry meterRegistry;
        private Supplier<String> traceparents;
        private int eventLoopThreads = ClientSettings.DEFAULTS.eventLoopThreads();
        private String token;

        private Builder() {
        }

        /** One address (a Service; its balancer places the connections): no key affinity. */
        public Builder endpoint(URI endpoint) {
            return podSource(PodSource.of(List.of(endpoint)));
        }

        /** The check-service pods, each {@code http://host:port}: a key's checks go to its pod. */
        public Builder pods(List<URI> pods) {
            return podSource(PodSource.of(pods));
        }

        /** Pods that change (e.g. {@link dev.tollgate.client.affinity.DnsPodSource}); closed with the client. */
        public Builder podSource(PodSource source) {
            this.pods = Objects.requireNonNull(source, "source");
            return this;
        }

        public Builder deadline(Duration value) {
            this.deadline = value;
            return this;
        }

        public Builder failMode(FailMode value) {
            this.failMode = value;
            return this;
        }

        public Builder maxConnectionsPerPod(int value) {
            this.maxConnectionsPerPod = value;
            return this;
        }

        /** Shorter than the deadline; unset or null, half the deadline and at most 500 ms (see {@link ClientSettings}). */
        public Builder connectTimeout(Duration value) {
            this.connectTimeout = value;
            return this;
        }

        public Builder idleTimeout(Duration value) {
            this.idleTimeout = value;
            return this;
        }

        /** How long a failed pod is skipped before one check probes it (default 1 s). */
        public Builder podDownFor(Duration value) {
            this.podDownFor = value;
            return this;
        }

        /** The longest a failed pod waits for its next probe, each failed probe doubling the wait (default 15 s). */
        public Builder podDownForAtMost(Duration value) {
            this.podDownForAtMost = value;
            return this;
        }

        /** Where the client's meters go ({@link ClientMetrics}); none when unset. Needs Micrometer, an optional dependency. */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = registry;
            return this;
        }

        /**
         * The W3C {@code traceparent} to send when the Reactor context has none ({@link #TRACEPARENT}), asked once per
         * check on the thread that subscribes to it (the caller's, for {@code checkBlocking}): e.g. from a tracer's
         * current span. Null or an invalid value: none is sent.
         */
        public Builder traceparent(Supplier<String> supplier) {
            this.traceparents = supplier;
            return this;
        }

        /** The service token check-service asks for ({@code tollgate.access.tokens}); never logged. */
        public Builder token(String value) {
            this.token = value == null || value.isBlank() ? null : value;
            return this;
        }

        public Builder eventLoopThreads(int value) {
            this.eventLoopThreads = value;
            return this;
        }

        public TollgateClient build() {
            if (pods == null) {
                throw new IllegalStateException("say where Tollgate is: endpoint(URI), pods(List<URI>) or podSource(PodSource)");
            }
            return new TollgateClient(new ClientSettings(deadline, failMode, maxConnectionsPerPod, connectTimeout, idleTimeout, podDownFor,
                    podDownForAtMost, eventLoopThreads), pods, token, meterRegistry, traceparents);
        }
    }
}
