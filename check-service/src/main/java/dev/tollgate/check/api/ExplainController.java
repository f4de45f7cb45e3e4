package dev.tollgate.check.api;

import dev.tollgate.check.access.ReaderTokens;
import dev.tollgate.common.check.CheckProblem;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.limiter.Explanation;
import dev.tollgate.limiter.Limiter;
import dev.tollgate.limiter.pods.PodRegistry;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code POST /v1/ratelimit:explain}: a check's body in, what a check would answer now and why out, per entry
 * (the rule and its version, the override in force and its expiry, the region's share, the stage that would
 * answer, the counter as the store holds it, the limit key), spending nothing: support's "why was this key
 * denied?". It answers about this pod: a deny cache, a lease and a breaker are each pod's own.
 *
 * <p>Only a reader's token opens it ({@link ReaderAccess}): a gateway's service token does not.
 */
@RestController
class ExplainController {

    static final String PATH = "/v1/ratelimit:explain";
    /** The path as the router matches it, segment by segment, for the token filter. */
    static final List<String> PATH_SEGMENTS = List.of("v1", "ratelimit:explain");

    private final Limiter limiter;
    private final ReaderTokens readers;
    private final String pod;

    ExplainController(Limiter limiter, ReaderTokens readers, PodRegistry pods) {
        this.limiter = limiter;
        this.readers = readers;
        this.pod = pods.podId();
    }

    @PostMapping(path = PATH, consumes = MediaType.APPLICATION_JSON_VALUE, produces = MediaType.APPLICATION_JSON_VALUE)
    Mono<Map<String, Object>> explain(@RequestHeader(name = HttpHeaders.AUTHORIZATION, required = false) String authorization,
                                      @RequestBody CheckRequest request, ServerHttpResponse http) {
        Optional<ProblemAnswer> refused = ReaderAccess.refusal(readers, authorization, http);
        if (refused.isPresent()) {
            return Mono.error(refused.get());
        }
        return Mono.fromFuture(limiter.explain(request)).flatMap(explanation -> explanation.match(new Explanation.Cases<>() {
            @Override
            public Mono<Map<String, Object>> explained(Explanation.Explained explained) {
                return Mono.just(body(pod, explained));
            }

            @Override
            public Mono<Map<String, Object>> noRules() {
                return Mono.error(new ProblemAnswer(CheckProblems.rulesNotLoaded()));
            }

            @Override
            public Mono<Map<String, Object>> invalid(List<CheckProblem> problems) {
                return Mono.error(new ProblemAnswer(CheckProblems.invalidRequest(problems)));
            }
        }));
    }

    /** @param pod the pod that answers: its deny cache, leases and breakers are what the stages speak of */
    private static Map<String, Object> body(String pod, Explanation.Explained explained) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("pod", pod);
        body.put("allowed", explained.allowed());
        body.put("entries", explained.entries().stream().map(ExplainController::entry).toList());
        return body;
    }

    private static Map<String, Object> entry(Explanation.Entry entry) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("index", entry.index());
        out.put("rule", entry.ruleId());
        out.put("key", entry.key());
        out.put("stage", entry.stage().name().toLowerCase());
        out.put("allowed", entry.allowed());
        out.put("why", entry.why());
        entry.rule().ifPresent(rule -> {
            out.put("version", rule.version());
            // the rule as it applies to the key, an override's rate and burst included
            out.put("rule_in_force", rule);
        });
        entry.override().ifPresent(override -> {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("rate_per_s", override.ratePerS());
            o.put("burst", override.burst());
            o.put("expires_at", override.expiresAt() == null ? null : override.expiresAt().toString());
            o.put("reason", override.reason());
            out.put("override", o);
        });
        out.put("share", entry.share());
        entry.limitKey().ifPresent(key -> out.put("limit_key", key));
        entry.shard().ifPresent(shard -> out.put("shard", shard));
        entry.level().ifPresent(level -> {
            Map<String, Object> l = new LinkedHashMap<>();
            l.put("remaining", level.remaining());
            l.put("limit", level.limit());
            l.put("reset_ms", level.resetMs());
            l.put("stored", level.stored());
            out.put("level", l);
        });
        return out;
    }
}
