package dev.tollgate.rules.usage;

import dev.tollgate.rules.rule.RuleCanary;
import dev.tollgate.rules.rule.RuleCatalog;
import io.swagger.v3.oas.annotations.Operation;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /v1/keys/{key}/usage}: one key's limits as this region's counter store holds them; and
 * {@code GET /v1/rules/{id}/canary/rates}: what a rule's canary and its promoted version deny, side by side.
 */
@RestController
class UsageController {

    private final UsageReader reader;
    private final RuleCatalog rules;
    private final RecentUsage recent;

    UsageController(UsageReader reader, RuleCatalog rules, RecentUsage recent) {
        this.reader = reader;
        this.rules = rules;
        this.recent = recent;
    }

    @Operation(summary = "Tokens left in each of the key's buckets, sliding-log and quota counts, overrides and region shares"
            + " (recent_rate_per_s: requests per second this region admitted in the last closed 10 s usage window;"
            + " absent for a rule whose limits are not split across regions, an ip identity or a sliding log, whose usage the pods do not report)")
    @GetMapping(path = "/v1/keys/{key}/usage", produces = MediaType.APPLICATION_JSON_VALUE)
    KeyUsage usage(@PathVariable String key, @RequestParam(required = false) String domain) {
        return reader.read(key, domain);
    }

    @Operation(summary = "Denies and shadow denies per second of the rule's canary (by the canary pods) and of its promoted version"
            + " (by the other pods), side by side, over the usage windows the region's counter store holds (about 30 s)")
    @GetMapping(path = "/v1/rules/{id}/canary/rates", produces = MediaType.APPLICATION_JSON_VALUE)
    CanaryRates canaryRates(@PathVariable String id) {
        RuleCanary canary = rules.canary(id);
        return recent.canaryRates(rules.get(id), canary);
    }
}
