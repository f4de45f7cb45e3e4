package dev.tollgate.check.forwardauth;

import dev.tollgate.check.api.RequestBodies;
import dev.tollgate.check.config.CheckProperties;
import dev.tollgate.check.metrics.CheckMeters;
import dev.tollgate.common.check.ProblemCodes;
import dev.tollgate.limiter.Limiter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code GET|HEAD|POST /v1/ratelimit:forward-auth[?domain=...&deny_status=...]}: the check a gateway makes with a
 * subrequest that carries the original request's headers (nginx's {@code auth_request} sends a GET, others the original
 * method). The attributes come from the headers ({@link Subrequest}); the answer is decided by {@link ForwardAuthAnswer}.
 * A body the gateway sends along is read and dropped, never used. Guarded by the service token like every path but the
 * actuator's ({@code ServiceTokenFilter}).
 *
 * <p>The answer is written as bytes, without content negotiation: the subrequest carries the client's own
 * {@code Accept} (a browser's {@code text/html}), which must not turn a deny into a 406.
 */
@RestController
class ForwardAuthController {

    static final String PATH = "/v1/ratelimit:forward-auth";
    private static final URI INSTANCE = URI.create(PATH);

    private final Limiter limiter;
    private final CheckProperties.ForwardAuth settings;
    private final JsonMapper json;
    private final MeterRegistry meters;
    private final Map<String, Counter> checks = new ConcurrentHashMap<>();

    ForwardAuthController(Limiter limiter, CheckProperties properties, JsonMapper json, MeterRegistry meters) {
        this.limiter = limiter;
        this.settings = properties.forwardAuth();
        this.json = json;
        this.meters = meters;
    }

    @RequestMapping(path = PATH, method = {RequestMethod.GET, RequestMethod.HEAD, RequestMethod.POST})
    Mono<Void> check(ServerWebExchange exchange, @RequestParam(name = "domain", required = false) String domain,
                     @RequestParam(name = "deny_status", required = false) String denyStatusParam) {
        ServerHttpRequest request = exchange.getRequest();
        int denyStatus = denyStatus(denyStatusParam);
        if (denyStatus < 0) {
            // the gateway's configuration asked for a status that is no deny: said at once, never guessed
            ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
                    "deny_status must be a 4xx status, e.g. 403 for nginx's auth_request.");
            problem.setProperty("code", ProblemCodes.BAD_REQUEST);
            problem.setProperty("errors", List.of(Map.of("field", "deny_status", "message", "must be a status between 400 and 499")));
            return RequestBodies.drain(exchange).then(Mono.defer(() ->
                    write(exchange, new ForwardAuthAnswer("invalid", 400, Map.of(), problem))));
        }
        String checked = domain != null ? domain : settings.domain();
        Subrequest subrequest = Subrequest.read(checked, request.getHeaders(), remoteAddress(request), settings);
        Mono<ForwardAuthAnswer> answer = subrequest.request()
                .map(check -> Mono.fromFuture(limiter.check(check)).map(outcome -> ForwardAuthAnswer.of(outcome, denyStatus)))
                .orElseGet(() -> Mono.just(ForwardAuthAnswer.invalidRequest(subrequest.problems(), denyStatus)));
        return RequestBodies.drain(exchange).then(answer).flatMap(result -> write(exchange, result));
    }

    private int denyStatus(String param) {
        if (param == null) {
            return settings.denyStatus();
        }
        int status = (int) Subrequest.cost(param);
        return status >= 400 && status <= 499 ? status : -1;
    }

    private Mono<Void> write(ServerWebExchange exchange, ForwardAuthAnswer answer) {
        counter(answer.outcome()).increment();
        ServerHttpResponse response = exchange.getResponse();
        response.setRawStatusCode(answer.status());
        HttpHeaders headers = response.getHeaders();
        answer.headers().forEach(headers::set);
        if (answer.problem() == null) {
            headers.setContentLength(0);
            return response.setComplete();
        }
        answer.problem().setInstance(INSTANCE);
        byte[] body = json.writeValueAsBytes(answer.problem());
        headers.setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        headers.setContentLength(body.length);
        return response.writeWith(Mono.just(response.bufferFactory().wrap(body)));
    }

    private Counter counter(String outcome) {
        return checks.computeIfAbsent(outcome, tag -> Counter.builder(CheckMeters.FORWARD_AUTH_CHECKS).tag("outcome", tag)
                .description("Forward-auth checks by answer: allow, deny, failed_closed (a fail-closed rule's shard could not answer:"
                        + " denied), invalid (the gateway's configuration: denied), no_rules (503)")
                .register(meters));
    }

    private static String remoteAddress(ServerHttpRequest request) {
        InetSocketAddress remote = request.getRemoteAddress();
        if (remote == null) {
            return "";
        }
        return remote.getAddress() != null ? remote.getAddress().getHostAddress() : remote.getHostString();
    }
}
