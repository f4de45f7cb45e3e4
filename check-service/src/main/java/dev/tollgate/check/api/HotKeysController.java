package dev.tollgate.check.api;

import dev.tollgate.check.access.ReaderTokens;
import dev.tollgate.limiter.Limiter;
import dev.tollgate.limiter.hotkeys.HotKeys;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code GET /v1/hot-keys}: the keys and Redis Cluster slots that took this pod's store calls in the last 10–20 s,
 * hottest first, from a bounded sketch ({@link HotKeys}): an operator sees a hot key before a primary's latency
 * shows it, and which slot to move to a primary of its own (docs/runbooks.md). A key is user data, so only a
 * reader's token opens it ({@link ReaderAccess}).
 */
@RestController
class HotKeysController {

    static final String PATH = "/v1/hot-keys";
    static final List<String> PATH_SEGMENTS = List.of("v1", "hot-keys");
    private static final int TOP_KEYS = 20;
    private static final int TOP_SLOTS = 10;

    private final Limiter limiter;
    private final ReaderTokens readers;

    HotKeysController(Limiter limiter, ReaderTokens readers) {
        this.limiter = limiter;
        this.readers = readers;
    }

    @GetMapping(path = PATH, produces = MediaType.APPLICATION_JSON_VALUE)
    Mono<Map<String, Object>> hotKeys(@RequestHeader(name = HttpHeaders.AUTHORIZATION, required = false) String authorization,
                                      ServerHttpResponse http) {
        Optional<ProblemAnswer> refused = ReaderAccess.refusal(readers, authorization, http);
        if (refused.isPresent()) {
            return Mono.error(refused.get());
        }
        HotKeys hot = limiter.hotKeys();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("window_s", HotKeys.WINDOW_NANOS / 1_000_000_000L * 2);
        body.put("keys", hot.top(TOP_KEYS).stream().map(key -> {
            Map<String, Object> k = new LinkedHashMap<>();
            k.put("key", key.key());
            k.put("slot", key.slot());
            k.put("store_calls", key.calls());
            // space-saving over-counts a key that took an evicted key's place by at most this
            k.put("error", key.error());
            return k;
        }).toList());
        body.put("slots", hot.topSlots(TOP_SLOTS).stream().map(slot -> {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("slot", slot.slot());
            s.put("store_calls", slot.calls());
            s.put("share", slot.share());
            return s;
        }).toList());
        return Mono.just(body);
    }
}
