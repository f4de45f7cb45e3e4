package dev.tollgate.rules.hotkeys;

import dev.tollgate.rules.problem.BadRequestException;
import io.swagger.v3.oas.annotations.Operation;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /v1/hot-keys?limit=N}: the region's hottest keys and slots over all its check-service pods. Bounded twice:
 * each pod publishes its top 32 only, and the answer holds the top {@code limit} (1-100) of each list. A store that
 * cannot be read answers 503 {@code store_unavailable}; pods that published nothing answer 200 with empty lists and
 * {@code pods_reported: 0}, so a page can tell "nothing is hot" from "nobody reported".
 */
@RestController
class HotKeysController {

    static final int DEFAULT_LIMIT = 20;
    static final int MAX_LIMIT = 100;

    private final FleetHotKeysReader reader;

    HotKeysController(FleetHotKeysReader reader) {
        this.reader = reader;
    }

    @Operation(summary = "The region's hottest keys and Redis Cluster slots by store calls in the last 10-20 s, summed over"
            + " the check-service pods' own tops (each key with how many pods have it in their top and its share of the"
            + " reporting pods' store calls); limit: 1-100, default 20")
    @GetMapping(path = "/v1/hot-keys", produces = MediaType.APPLICATION_JSON_VALUE)
    FleetTop hotKeys(@RequestParam(required = false) String limit) {
        return reader.read(limit(limit));
    }

    private static int limit(String text) {
        if (text == null) {
            return DEFAULT_LIMIT;
        }
        try {
            int value = Integer.parseInt(text.trim());
            if (value >= 1 && value <= MAX_LIMIT) {
                return value;
            }
        } catch (NumberFormatException e) {
            // answered below, as a value out of range is
        }
        throw new BadRequestException("limit must be a whole number from 1 to " + MAX_LIMIT);
    }
}
