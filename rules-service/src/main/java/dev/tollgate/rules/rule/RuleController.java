package dev.tollgate.rules.rule;

import dev.tollgate.common.rule.Mode;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.validation.RuleValidator;
import dev.tollgate.rules.change.HistoryEntry;
import dev.tollgate.rules.change.IfMatch;
import dev.tollgate.rules.change.VersionedWrites.Written;
import dev.tollgate.rules.problem.BadRequestException;
import dev.tollgate.rules.problem.InvalidRuleException;
import io.swagger.v3.oas.annotations.Operation;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.net.URI;
import java.security.Principal;
import java.time.Duration;
import java.util.List;

/**
 * {@code /v1/rules}. A rule's {@code ETag} is its version; every change to an existing rule names the
 * version it was based on in {@code If-Match}. The custom methods {@code :shadow} and {@code :enforce}
 * follow the {@code POST /v1/ratelimit:check} style: a verb after a colon in the last segment.
 *
 * <p>A canary rollout: {@code PUT /v1/rules/{id}?rollout=canary} writes the rule as its canary
 * ({@code /v1/rules/{id}/canary}, whose ETag is the canary's version), which {@code :promote} makes the rule and
 * {@code :rollback} drops, each with that version in {@code If-Match}.
 */
@RestController
class RuleController {

    private final RuleCatalog catalog;
    private final Duration flushInterval;

    RuleController(RuleCatalog catalog, CountAfterProperties countAfter) {
        this.catalog = catalog;
        this.flushInterval = countAfter.flushInterval();
    }

    @Operation(summary = "List rules, optionally of one domain")
    @GetMapping(path = "/v1/rules", produces = MediaType.APPLICATION_JSON_VALUE)
    List<RuleAnswer> list(@RequestParam(required = false) String domain) {
        return catalog.list(domain).stream().map(this::answer).toList();
    }

    @Operation(summary = "Read one rule; its ETag is its version")
    @GetMapping(path = "/v1/rules/{id}", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<RuleAnswer> get(@PathVariable String id) {
        Rule rule = catalog.get(id);
        return ResponseEntity.ok().eTag(etag(rule)).body(answer(rule));
    }

    @Operation(summary = "Create (201, no If-Match) or replace (200, If-Match: current version) a rule")
    @PutMapping(path = "/v1/rules/{id}", consumes = MediaType.APPLICATION_JSON_VALUE, produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<RuleAnswer> put(@PathVariable String id, @RequestBody RuleRequest body,
                             @RequestHeader(name = HttpHeaders.IF_MATCH, required = false) String ifMatch,
                             Principal who) {
        requireSameId(id, body);
        IfMatch precondition = IfMatch.parse(ifMatch);
        Written<Rule> written = catalog.put(body.toFields(id), precondition, who.getName(), body.reason());
        if (written.created()) {
            return ResponseEntity.created(URI.create("/v1/rules/" + id)).eTag(etag(written.value())).body(answer(written.value()));
        }
        return ResponseEntity.ok().eTag(etag(written.value())).body(answer(written.value()));
    }

    @Operation(summary = "Write a rule's next version as its canary (If-Match: the rule's current version): enforced by the canary"
            + " pods only (tollgate.rules.canary), until promoted or rolled back; 201 with the canary, at its own version")
    @PutMapping(path = "/v1/rules/{id}", params = "rollout", consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<CanaryAnswer> putCanary(@PathVariable String id, @RequestParam String rollout, @RequestBody RuleRequest body,
                                           @RequestHeader(name = HttpHeaders.IF_MATCH, required = false) String ifMatch,
                                           Principal who) {
        if (!"canary".equals(rollout)) {
            throw new BadRequestException("rollout must be canary (PUT /v1/rules/{id}?rollout=canary); leave it out to replace the rule");
        }
        requireSameId(id, body);
        IfMatch precondition = IfMatch.parse(ifMatch);
        RuleCanary canary = catalog.putCanary(body.toFields(id), precondition, who.getName(), body.reason());
        return ResponseEntity.created(URI.create("/v1/rules/" + id + "/canary")).eTag(etag(canary.version())).body(canaryAnswer(canary));
    }

    @Operation(summary = "Read a rule's canary; its ETag is the canary's version")
    @GetMapping(path = "/v1/rules/{id}/canary", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<CanaryAnswer> canary(@PathVariable String id) {
        RuleCanary canary = catalog.canary(id);
        return ResponseEntity.ok().eTag(etag(canary.version())).body(canaryAnswer(canary));
    }

    @Operation(summary = "Make the canary the rule, for every pod, at the canary's version (If-Match: the canary's version)")
    @PostMapping(path = "/v1/rules/{id}:promote", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<RuleAnswer> promote(@PathVariable String id, @RequestBody(required = false) ReasonRequest body,
                                       @RequestHeader(name = HttpHeaders.IF_MATCH, required = false) String ifMatch,
                                       Principal who) {
        Rule rule = catalog.promote(id, IfMatch.parse(ifMatch), who.getName(), body == null ? null : body.reason());
        return ResponseEntity.ok().eTag(etag(rule)).body(answer(rule));
    }

    @Operation(summary = "Drop the canary (If-Match: the canary's version): the canary pods enforce the rule again; answers the rule")
    @PostMapping(path = "/v1/rules/{id}:rollback", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<RuleAnswer> rollback(@PathVariable String id, @RequestBody(required = false) ReasonRequest body,
                                        @RequestHeader(name = HttpHeaders.IF_MATCH, required = false) String ifMatch,
                                        Principal who) {
        Rule rule = catalog.rollback(id, IfMatch.parse(ifMatch), who.getName(), body == null ? null : body.reason());
        return ResponseEntity.ok().eTag(etag(rule)).body(answer(rule));
    }

    @Operation(summary = "Delete a rule (If-Match: current version), with its overrides and region budgets")
    @DeleteMapping(path = "/v1/rules/{id}")
    ResponseEntity<Void> delete(@PathVariable String id,
                                @RequestHeader(name = HttpHeaders.IF_MATCH, required = false) String ifMatch,
                                @RequestParam(required = false) String reason,
                                Principal who) {
        catalog.delete(id, IfMatch.parse(ifMatch), who.getName(), reason);
        return ResponseEntity.noContent().build();
    }

    @Operation(summary = "Put a rule in shadow mode: evaluated and counted, never enforced")
    @PostMapping(path = "/v1/rules/{id}:shadow", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<RuleAnswer> shadow(@PathVariable String id, @RequestBody(required = false) ReasonRequest body,
                                @RequestHeader(name = HttpHeaders.IF_MATCH, required = false) String ifMatch,
                                Principal who) {
        return setMode(id, Mode.SHADOW, body, ifMatch, who);
    }

    @Operation(summary = "Enforce a rule again")
    @PostMapping(path = "/v1/rules/{id}:enforce", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<RuleAnswer> enforce(@PathVariable String id, @RequestBody(required = false) ReasonRequest body,
                                 @RequestHeader(name = HttpHeaders.IF_MATCH, required = false) String ifMatch,
                                 Principal who) {
        return setMode(id, Mode.ENFORCE, body, ifMatch, who);
    }

    @Operation(summary = "The rule's audit history (its versions and its overrides' changes), oldest first")
    @GetMapping(path = "/v1/rules/{id}/versions", produces = MediaType.APPLICATION_JSON_VALUE)
    List<HistoryEntry> versions(@PathVariable String id) {
        return catalog.history(id);
    }

    private ResponseEntity<RuleAnswer> setMode(String id, Mode mode, ReasonRequest body, String ifMatch, Principal who) {
        Rule rule = catalog.setMode(id, mode, IfMatch.parse(ifMatch), who.getName(), body == null ? null : body.reason());
        return ResponseEntity.ok().eTag(etag(rule)).body(answer(rule));
    }

    private static void requireSameId(String id, RuleRequest body) {
        if (body.id() != null && !body.id().equals(id)) {
            // the body's id is quoted only when it could be an id: it may be 60 KB of anything
            String named = RuleValidator.isRuleId(body.id()) ? body.id() : "another id";
            throw InvalidRuleException.of("id", "is " + named + " in the body but " + id + " in the path; they must match");
        }
    }

    private CanaryAnswer canaryAnswer(RuleCanary canary) {
        return CanaryAnswer.of(canary, flushInterval);
    }

    private RuleAnswer answer(Rule rule) {
        return RuleAnswer.of(rule, flushInterval);
    }

    private static String etag(Rule rule) {
        return etag(rule.version());
    }

    private static String etag(long version) {
        return "\"" + version + "\"";
    }
}
