package dev.tollgate.check.api;

import dev.tollgate.check.access.ServiceTokens;
import dev.tollgate.check.metrics.CheckMeters;
import dev.tollgate.check.tracing.TracingSwitch;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.limiter.Limiter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.reactor.netty.NettyRouteProvider;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.stereotype.Component;
import org.springframework.util.unit.DataSize;
import org.springframework.web.util.DisconnectedClientHelper;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import reactor.netty.http.server.HttpServerRoutes;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * {@code POST /v1/ratelimit:check} straight on Reactor Netty, ahead of WebFlux: the same check, answer,
 * problem details and {@code http.server.requests} series as {@link CheckController}, without the
 * annotated dispatch, content negotiation, codec lookup and observation that cost several times the
 * engine's own work on every check.
 *
 * <p>Only the plain request takes this route: a JSON body of a known length within the codecs' limit,
 * an {@code Accept} that takes JSON, and the service token when one is required. Anything else (no or
 * another media type, a chunked or oversized body, a missing token, another method) falls through to
 * WebFlux, which answers it exactly as before: 401, 406, 413 and 415 keep one implementation.
 *
 * <p>Only with tracing off: on, the check goes through WebFlux so that its trace keeps the HTTP span
 * with the engine's and Redis' spans under it.
 */
@Component
@ConditionalOnProperty(name = TracingSwitch.EXPORT, havingValue = "false")
class CheckRoute implements NettyRouteProvider, SmartInitializingSingleton {

    static final String PATH = "/v1/ratelimit:check";
    private static final URI INSTANCE = URI.create(PATH);
    private static final String JSON = MediaType.APPLICATION_JSON_VALUE;
    private static final String PROBLEM_JSON = MediaType.APPLICATION_PROBLEM_JSON_VALUE;
    /** Built once: a method reference in the chain is a new object on every check. */
    private static final Predicate<Throwable> GONE = DisconnectedClientHelper::isClientDisconnectedException;

    /**
     * Looked up once every bean is built, before the ports open: the web server factory asks for its routes, and Spring
     * AOT's processing of the management server's context builds that factory in the build, where no store can be.
     */
    private final Supplier<Limiter> limiters;
    private Limiter limiter;
    private final CheckJson check;
    private final JsonMapper json;
    private final ServiceTokens tokens;
    private final long maxBody;
    private final MeterRegistry meters;
    /** One timer per status, tagged as WebFlux's observation tags the check's requests, built once. */
    private final Map<Integer, Timer> timers = new ConcurrentHashMap<>();
    /**
     * Checks on this route being answered. Not WebFlux's {@code http.server.requests.active} long task timer: its sorted
     * set of running requests, one insert and one removal per check, cost more than the rest of the route's bookkeeping
     * (JFR). A count is all an in-flight gauge needs, as {@code tollgate.rls.in_flight} is for Envoy's calls.
     */
    private final LongAdder inFlight = new LongAdder();

    @Autowired
    CheckRoute(ObjectProvider<Limiter> limiters, CheckJson check, JsonMapper json, ServiceTokens tokens, MeterRegistry meters,
               @Value("${spring.http.codecs.max-in-memory-size:256KB}") DataSize maxBody) {
        this(limiters::getObject, check, json, tokens, meters, maxBody.toBytes());
    }

    /** The route on an engine of its own, for a server of its own: {@link LoopbackCheckServer}. */
    CheckRoute(Supplier<Limiter> limiters, CheckJson check, JsonMapper json, ServiceTokens tokens, MeterRegistry meters, long maxBody) {
        this.limiters = limiters;
        this.check = check;
        this.json = json;
        this.tokens = tokens;
        this.meters = meters;
        this.maxBody = maxBody;
        Gauge.builder(CheckMeters.HTTP_CHECKS_IN_FLIGHT, inFlight, LongAdder::sum)
                .description("Checks on the HTTP check's own route read and not yet answered")
                .register(meters);
    }

    @Override
    public void afterSingletonsInstantiated() {
        limiter = limiters.get();
    }

    @Override
    public HttpServerRoutes apply(HttpServerRoutes routes) {
        return routes.route(this::takes, this::check);
    }

    /** Whether the request is the plain check this route answers; everything else is WebFlux's. */
    boolean takes(HttpServerRequest request) {
        if (request.method() != HttpMethod.POST || !path(request.uri())) {
            return false;
        }
        HttpHeaders headers = request.requestHeaders();
        // null when absent or not a number (Netty's decoder has refused a malformed length already)
        Integer length = headers.getInt(HttpHeaderNames.CONTENT_LENGTH);
        return length != null && length > 0 && length <= maxBody
                && !headers.contains(HttpHeaderNames.TRANSFER_ENCODING)
                && json(headers.get(HttpHeaderNames.CONTENT_TYPE))
                && accepts(headers.get(HttpHeaderNames.ACCEPT))
                && tokens.accepts(headers.get(HttpHeaderNames.AUTHORIZATION));
    }

    private Mono<Void> check(HttpServerRequest request, HttpServerResponse response) {
        long started = System.nanoTime();
        inFlight.increment();
        return request.receive().aggregate().asByteArray()
                .flatMap(body -> Mono.fromFuture(limiter.check(read(body))))
                .map(outcome -> CheckProblems.answer(outcome, answer -> verdict(answer, response), problem -> problem(problem, response)))
                .onErrorResume(failure -> Mono.just(problem(failure instanceof UnreadableCheck
                        ? CheckProblems.unreadable(failure) : CheckProblems.of(failure), response)))
                .flatMap(body -> response.sendObject(body).then()
                        // gone before or while its answer was written: counted by the status set, as WebFlux counts it
                        .onErrorResume(GONE, gone -> Mono.empty()))
                .doOnSuccess(done -> timer(response.status().code()).record(System.nanoTime() - started, TimeUnit.NANOSECONDS))
                .doFinally(signal -> inFlight.decrement());
    }

    private CheckRequest read(byte[] body) {
        CheckRequest request;
        try {
            request = check.read(body);
        } catch (JacksonException e) {
            throw new UnreadableCheck(e);
        }
        if (request == null) {
            // a JSON null: no request, as WebFlux finds no body
            throw new UnreadableCheck(null);
        }
        return request;
    }

    private ByteBuf verdict(CheckResponse answer, HttpServerResponse response) {
        ByteBuf body = response.alloc().buffer(256);
        try {
            check.write(answer, new ByteBufOutputStream(body));
        } catch (RuntimeException e) {
            body.release();
            throw e;
        }
        response.status(HttpResponseStatus.OK);
        HttpHeaders headers = response.responseHeaders();
        headers.set(HttpHeaderNames.CONTENT_TYPE, JSON);
        answer.headers().forEach(headers::set);
        headers.setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        return body;
    }

    private ByteBuf problem(ProblemDetail problem, HttpServerResponse response) {
        problem.setInstance(INSTANCE);
        byte[] body = json.writeValueAsBytes(problem);
        response.status(problem.getStatus());
        HttpHeaders headers = response.responseHeaders();
        headers.set(HttpHeaderNames.CONTENT_TYPE, PROBLEM_JSON);
        headers.setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        if (problem.getStatus() == HttpResponseStatus.REQUEST_TIMEOUT.code()) {
            // the rest of the body may still come: nothing could tell it from the next request
            headers.set(HttpHeaderNames.CONNECTION, "close");
        }
        return Unpooled.wrappedBuffer(body);
    }

    private Timer timer(int status) {
        return timers.computeIfAbsent(status, code -> Timer.builder(CheckMeters.HTTP_REQUESTS)
                .tags("error", "none", "exception", "none", "method", "POST", "outcome", outcome(code),
                        "status", Integer.toString(code), "uri", PATH)
                .register(meters));
    }

    private static String outcome(int status) {
        return status >= 500 ? "SERVER_ERROR" : status >= 400 ? "CLIENT_ERROR" : "SUCCESS";
    }

    /** The path alone or with a query, as WebFlux's mapping takes it; any other spelling is WebFlux's to judge. */
    private static boolean path(String uri) {
        return uri.startsWith(PATH) && (uri.length() == PATH.length() || uri.charAt(PATH.length()) == '?');
    }

    private static boolean json(String contentType) {
        return contentType != null && (contentType.equalsIgnoreCase(JSON)
                || contentType.equalsIgnoreCase("application/json;charset=utf-8")
                || contentType.equalsIgnoreCase("application/json; charset=utf-8"));
    }

    private static boolean accepts(String accept) {
        return accept == null || accept.equals("*/*") || accept.equalsIgnoreCase(JSON);
    }

    /** A body that is no check request; its cause is Jackson's refusal, or none for a JSON null. */
    private static final class UnreadableCheck extends RuntimeException {
        UnreadableCheck(JacksonException cause) {
            super(null, cause, false, false);
        }
    }
}
