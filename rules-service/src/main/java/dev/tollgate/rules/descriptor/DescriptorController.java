package dev.tollgate.rules.descriptor;

import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.validation.RuleValidator;
import dev.tollgate.common.validation.Violation;
import dev.tollgate.rules.change.IfMatch;
import dev.tollgate.rules.change.VersionedWrites.Written;
import dev.tollgate.rules.problem.InvalidDescriptorsException;
import io.swagger.v3.oas.annotations.Operation;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.net.URI;
import java.security.Principal;
import java.util.List;

/**
 * {@code /v1/descriptors}: how Envoy's rate limit descriptors map to rules, one document per domain,
 * in the shape envoyproxy/ratelimit users write. Its {@code ETag} is its version, as for a rule.
 */
@RestController
class DescriptorController {

    private final DescriptorCatalog catalog;

    DescriptorController(DescriptorCatalog catalog) {
        this.catalog = catalog;
    }

    @Operation(summary = "Every domain's descriptor mappings")
    @GetMapping(path = "/v1/descriptors", produces = MediaType.APPLICATION_JSON_VALUE)
    List<DescriptorDomain> list() {
        return catalog.list();
    }

    @Operation(summary = "One domain's descriptor mappings; the ETag is their version")
    @GetMapping(path = "/v1/descriptors/{domain}", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<DescriptorDomain> get(@PathVariable String domain) {
        DescriptorDomain mapping = catalog.get(domain);
        return ResponseEntity.ok().eTag(etag(mapping)).body(mapping);
    }

    @Operation(summary = "Create (201, no If-Match) or replace (200, If-Match: current version) a domain's descriptor mappings;"
            + " 422 invalid_descriptors when one names no rule of the domain")
    @PutMapping(path = "/v1/descriptors/{domain}", consumes = MediaType.APPLICATION_JSON_VALUE, produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<DescriptorDomain> put(@PathVariable String domain, @RequestBody DescriptorRequest body,
                                         @RequestHeader(name = HttpHeaders.IF_MATCH, required = false) String ifMatch,
                                         Principal who) {
        if (body.domain() != null && !body.domain().equals(domain)) {
            String named = RuleValidator.isStorableText(body.domain(), RuleValidator.MAX_DOMAIN) ? body.domain() : "another domain";
            throw new InvalidDescriptorsException(List.of(new Violation("domain",
                    "is " + named + " in the body but " + domain + " in the path; they must match")));
        }
        IfMatch precondition = IfMatch.parse(ifMatch);
        Written<DescriptorDomain> written = catalog.put(new DescriptorDomain(domain, body.descriptors(), 0), precondition,
                who.getName(), body.reason());
        if (written.created()) {
            return ResponseEntity.created(URI.create("/v1/descriptors/" + domain)).eTag(etag(written.value())).body(written.value());
        }
        return ResponseEntity.ok().eTag(etag(written.value())).body(written.value());
    }

    @Operation(summary = "Delete a domain's descriptor mappings (If-Match: current version)")
    @DeleteMapping(path = "/v1/descriptors/{domain}")
    ResponseEntity<Void> delete(@PathVariable String domain,
                                @RequestHeader(name = HttpHeaders.IF_MATCH, required = false) String ifMatch,
                                @RequestParam(required = false) String reason,
                                Principal who) {
        catalog.delete(domain, IfMatch.parse(ifMatch), who.getName(), reason);
        return ResponseEntity.noContent().build();
    }

    private static String etag(DescriptorDomain mapping) {
        return "\"" + mapping.version() + "\"";
    }
}
