package dev.tollgate.rules.usage;

import io.swagger.v3.oas.annotations.Operation;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /v1/keys/{key}/usage}: one key's limits as this region's counter store holds them. */
@RestController
class UsageController {

    private final UsageReader reader;

    UsageController(UsageReader reader) {
        this.reader = reader;
    }

    @Operation(summary = "Tokens left in each of the key's buckets, sliding-log and quota counts, overrides and region shares"
            + " (recent_rate_per_s: requests per second this region admitted in the last closed 10 s usage window;"
            + " absent for a rule whose limits are not split across regions, an ip identity or a sliding log, whose usage the pods do not report)")
    @GetMapping(path = "/v1/keys/{key}/usage", produces = MediaType.APPLICATION_JSON_VALUE)
    KeyUsage usage(@PathVariable String key, @RequestParam(required = false) String domain) {
        return reader.read(key, domain);
    }
}
