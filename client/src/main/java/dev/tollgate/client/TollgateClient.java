package dev.tollgate.client;

import dev.tollgate.client.affinity.PodPicker;
import dev.tollgate.client.affinity.PodSource;
import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.ProblemCodes;
import dev.tollgate.common.check.RateLimitHeaders;
import dev.tollgate.common.wire.WireFormat;
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
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.ConnectException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;

/**
 * A client of {@code POST /v1/ratelimit:check}. Every call answers within its deadline: Tollgate's answer, or the
 * client's {@link FailMode} marked as a {@link ClientFallback}. Connections are pooled and kept alive per pod.
 *
 * <p>With several pods ({@link Builder#pods}, {@link Builder#podSource}) a check goes to its key's pod by rendezvous
 * hashing of the first entry's key, so that pod's leases and remembered denies serve the key; a pod that refuses
 * connections, does not connect within the connect timeout (half the deadline by default), or holds no rules yet is
 * skipped to the key's next pod within the same deadline. A check that may have reached a pod is never sent to a
 * second one: that could spend it twice. It is answered by the fail mode at its deadline, and if the pod had not begun
 * to answer, the pod is passed over like a refusing one by the checks after it, so a silent pod costs its keys one
 * deadline, not one each.
 *
 * <p>Thread-safe; one per application. {@link #checkBlocking} must not be called on an event-loop thread.
 */
public final class TollgateClient implements AutoCloseable {

    static final String CHECK_PATH = "/v1/ratelimit:check";
    private static final byte[] NO_BODY = new byte[0];

    private final ClientSettings settings;
    private final PodSource pods;
    private final PodPicker picker;
    private final ConnectionProvider connections;
    private final LoopResources loops;
    private final HttpClient http;
    private final JsonMapper json;
    private final Fallbacks fallbacks;
    private final LongAdder connectionsOpened = new LongAdder();

    private TollgateClient(ClientSettings settings, PodSource pods, String token) {
        this.settings = settings;
        this.pods = pods;
        this.picker = new PodPicker(pods, settings.podDownFor(), System::nanoTime);
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
     * has not begun to answer by then is passed over for {@code podDownFor}, so a deadline far below the pods' answer
     * time moves keys off healthy pods.
     */
    public Mono<CheckResult> check(CheckRequest request, Duration deadline) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(deadline, "deadline");
        return Mono.defer(() -> {
            byte[] body = json.writeValueAsBytes(request);
            List<URI> order = picker.order(affinityKey(request));
            if (order.isEmpty()) {
                return fallbacks.answer(new ClientFallback(ClientFallback.Reason.UNREACHABLE, "no check-service pod is known"), null, null);
            }
            Progress progress = new Progress(order.get(0));
            return attempt(order, 0, body, progress)
                    .timeout(deadline)
                    .onErrorResume(CallFailure.class, failure -> fallbacks.answer(failure.why(), failure, progress.pod))
                    .onErrorResume(TimeoutException.class, late -> {
                        URI pod = progress.pod;
                        if (!progress.answering) {
                            // a pod silent on a connection (a frozen JVM, a dead node behind a kept-alive connection)
                            // raises no error of its own: unless its deadline marks it, each of its keys' checks pays one
                            picker.failed(pod);
                        }
                        return fallbacks.answer(new ClientFallback(ClientFallback.Reason.DEADLINE,
                                "no answer within " + deadline.toMillis() + " ms from " + pod), late, pod);
                    });
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

    /** TCP connections opened since the client started: flat while the pool keeps them alive. */
    public long connectionsOpened() {
        return connectionsOpened.sum();
    }

    public ClientSettings settings() {
        return settings;
    }

    @Override
    public void close() {
        connections.disposeLater().block(Duration.ofSeconds(5));
        loops.disposeLater(Duration.ZERO, Duration.ofSeconds(2)).block(Duration.ofSeconds(5));
        pods.close();
    }

    private Mono<CheckResult> attempt(List<URI> order, int index, byte[] body, Progress progress) {
        URI pod = order.get(index);
        progress.trying(pod);
        return send(pod, body, progress)
                .onErrorMap(failure -> !(failure instanceof CallFailure), failure -> transportFailure(pod, failure))
                .flatMap(answer -> read(answer, pod))
                .doOnNext(answered -> picker.answered(pod))
                .onErrorResume(CallFailure.class, failure -> {
                    if (failure.why().reason() == ClientFallback.Reason.CLOSED_RULE_UNAVAILABLE) {
                        return Mono.error(failure);
                    }
                    picker.failed(pod);
                    if (failure.nothingSpent() && index + 1 < order.size()) {
                        return attempt(order, index + 1, body, progress);
                    }
                    return Mono.error(failure);
                });
    }

    private record Answer(int status, RateLimitHeaders headers, byte[] body) {
    }

    /**
     * Where one check stands when its deadline passes: the pod being tried, and whether its answer had begun (a pod
     * that sends its head late is slow, not gone). Written on the event loop, read on the deadline's timer thread.
     */
    private static final class Progress {

        private volatile URI pod;
        private volatile boolean answering;

        Progress(URI first) {
            this.pod = first;
        }

        void trying(URI next) {
            answering = false;
            pod = next;
        }

        void answering() {
            answering = true;
        }
    }

    private Mono<Answer> send(URI pod, byte[] body, Progress progress) {
        return http.post()
                .uri(pod.resolve(CHECK_PATH))
                .send(Mono.fromSupplier(() -> Unpooled.wrappedBuffer(body)))
                .responseSingle((response, content) -> {
                    progress.answering();
                    return content.asByteArray()
                            .defaultIfEmpty(NO_BODY)
                            .map(bytes -> new Answer(response.status().code(), headers(response.responseHeaders()), bytes));
                });
    }

    private static RateLimitHeaders headers(HttpHeaders headers) {
        return new RateLimitHeaders(headers.get(RateLimitHeaders.POLICY), headers.get(RateLimitHeaders.RATE_LIMIT),
                headers.get(RateLimitHeaders.RETRY_AFTER));
    }

    /** A failure before any answer: retried on the next pod only when the check surely never left the client. */
    private static CallFailure transportFailure(URI pod, Throwable failure) {
        boolean neverConnected = failure instanceof ConnectException || failure instanceof ConnectTimeoutException
                || failure.getCause() instanceof ConnectException;
        ClientFallback why = new ClientFallback(neverConnected ? ClientFallback.Reason.UNREACHABLE : ClientFallback.Reason.BROKEN_ANSWER,
                pod + ": " + failure);
        return new CallFailure(why, neverConnected, failure);
    }

    private Mono<CheckResult> read(Answer answer, URI pod) {
        int status = answer.status();
        if (status == 200) {
            try {
                return Mono.just(CheckResult.answered(json.readValue(answer.body(), CheckResponse.class), answer.headers(), pod));
            } catch (JacksonException notACheckAnswer) {
                return Mono.error(new CallFailure(new ClientFallback(ClientFallback.Reason.BROKEN_ANSWER,
                        pod + " answered 200 with a body that is not a check answer: " + notACheckAnswer.getOriginalMessage()), false, notACheckAnswer));
            }
        }
        String code = problemCode(answer.body());
        if (status >= 400 && status < 500) {
            return Mono.error(new TollgateProblemException(status, code, problemDetail(answer.body()),
                    new String(answer.body(), StandardCharsets.UTF_8)));
        }
        if (ProblemCodes.failedClosed(code)) {
            return Mono.error(new CallFailure(new ClientFallback(ClientFallback.Reason.CLOSED_RULE_UNAVAILABLE, pod + ": " + status + " " + code),
                    false, null));
        }
        // a pod without rules spent nothing and says so: its key's next pod may answer
        boolean nothingSpent = ProblemCodes.RULES_UNAVAILABLE.equals(code);
        return Mono.error(new CallFailure(new ClientFallback(ClientFallback.Reason.SERVER_ERROR, pod + ": " + status + " " + code),
                nothingSpent, null));
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

    /** The key whose pod answers: the first entry's (a gateway's entries normally share the account key). */
    static String affinityKey(CheckRequest request) {
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

        /** At most the deadline; unset or null, half the deadline and at most 500 ms (see {@link ClientSettings}). */
        public Builder connectTimeout(Duration value) {
            this.connectTimeout = value;
            return this;
        }

        public Builder idleTimeout(Duration value) {
            this.idleTimeout = value;
            return this;
        }

        public Builder podDownFor(Duration value) {
            this.podDownFor = value;
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
                    eventLoopThreads), pods, token);
        }
    }
}
