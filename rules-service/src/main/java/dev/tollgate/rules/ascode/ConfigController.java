package dev.tollgate.rules.ascode;

import dev.tollgate.common.ascode.DomainFile;
import dev.tollgate.common.ascode.DomainFile.Format;
import dev.tollgate.common.validation.RuleValidator;
import dev.tollgate.rules.problem.BadRequestException;
import io.swagger.v3.oas.annotations.Operation;
import org.springframework.http.HttpHeaders;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Comparator;
import java.util.List;

/**
 * {@code /v1/config:apply}, {@code :diff} and {@code :export}: a domain's whole configuration as one file, YAML or JSON,
 * the custom-method style of {@code POST /v1/ratelimit:check}. Applying is a write (scope ratelimit:admin); exporting and
 * diffing are reads (ratelimit:read): the diff is a POST only because it carries a file, and the security
 * configuration names its one path.
 */
@RestController
class ConfigController {

    static final String YAML = "application/yaml";

    private final ConfigApply apply;
    private final DomainStore store;

    ConfigController(ConfigApply apply, DomainStore store) {
        this.apply = apply;
        this.store = store;
    }

    @Operation(summary = "Make a domain what its file says (YAML or JSON body): its rules, descriptor mapping and overrides created,"
            + " updated and deleted in one transaction, each recorded in the history with the caller and reason. dry_run=true answers"
            + " the same diff and stores nothing. 422 invalid_config lists every problem of the file; 400 when it is not YAML (JSON);"
            + " If-Match with the domain's digest (export's ETag, a dry run's digest_before) refuses an apply over a domain changed"
            + " since (409 version_conflict)")
    @PostMapping(path = "/v1/config:apply", consumes = {YAML, "application/x-yaml", "text/yaml", MediaType.APPLICATION_JSON_VALUE},
            produces = MediaType.APPLICATION_JSON_VALUE)
    ApplyReport apply(@RequestBody(required = false) byte[] file,
                      @RequestHeader(name = HttpHeaders.CONTENT_TYPE) String contentType,
                      @RequestParam(name = "dry_run", defaultValue = "false") boolean dryRun,
                      @RequestParam(required = false) String reason,
                      @RequestHeader(name = HttpHeaders.IF_MATCH, required = false) String ifMatch,
                      Principal who) {
        ExpectedDigest expected = ExpectedDigest.parse(ifMatch);
        return apply.apply(file, formatOf(contentType), dryRun, expected, who.getName(), reason);
    }

    @Operation(summary = "What applying the file would change, for a reader's token (scope ratelimit:read, e.g. a pull request's check):"
            + " the same diff as an apply's dry run, from one consistent read of the store, taking no lock and writing nothing")
    @PostMapping(path = "/v1/config:diff", consumes = {YAML, "application/x-yaml", "text/yaml", MediaType.APPLICATION_JSON_VALUE},
            produces = MediaType.APPLICATION_JSON_VALUE)
    ApplyReport diff(@RequestBody(required = false) byte[] file, @RequestHeader(name = HttpHeaders.CONTENT_TYPE) String contentType) {
        return apply.diff(file, formatOf(contentType));
    }

    @Operation(summary = "A domain's configuration in the canonical form of a rules-as-code file: YAML, or JSON for Accept: application/json;"
            + " its ETag is the domain's digest. A domain with nothing stored is a file of its domain only")
    @GetMapping(path = "/v1/config:export", produces = {YAML, MediaType.APPLICATION_JSON_VALUE})
    ResponseEntity<byte[]> export(@RequestParam String domain,
                                  @RequestHeader(name = HttpHeaders.ACCEPT, required = false) String accept) {
        if (domain.isBlank() || !RuleValidator.isStorableText(domain, RuleValidator.MAX_DOMAIN)) {
            throw new BadRequestException("domain must be 1-" + RuleValidator.MAX_DOMAIN + " characters of valid text without control characters");
        }
        StoredDomain stored = store.snapshot(domain);
        Format format = preferred(accept);
        byte[] body = DomainFile.write(stored.config(), format).getBytes(StandardCharsets.UTF_8);
        return ResponseEntity.ok()
                .contentType(format == Format.JSON ? MediaType.APPLICATION_JSON : MediaType.parseMediaType(YAML))
                .eTag("\"" + DomainFile.digest(stored.config()) + "\"")
                .body(body);
    }

    private static Format formatOf(String contentType) {
        return MediaType.APPLICATION_JSON.isCompatibleWith(MediaType.parseMediaType(contentType)) ? Format.JSON : Format.YAML;
    }

    /** JSON only when the client prefers it to YAML; YAML, the file's usual spelling, for anything else (no Accept, {@code *}/{@code *}). */
    static Format preferred(String accept) {
        if (accept == null || accept.isBlank()) {
            return Format.YAML;
        }
        List<MediaType> types;
        try {
            types = MediaType.parseMediaTypes(accept);
        } catch (InvalidMediaTypeException e) {
            return Format.YAML;
        }
        // stable: among equal qualities the order the client wrote
        List<MediaType> byQuality = types.stream().sorted(Comparator.comparingDouble(MediaType::getQualityValue).reversed()).toList();
        for (MediaType type : byQuality) {
            if (type.getQualityValue() > 0 && !type.isWildcardType() && !type.isWildcardSubtype()
                    && type.isCompatibleWith(MediaType.APPLICATION_JSON)) {
                return Format.JSON;
            }
            if (type.getQualityValue() > 0 && (type.isWildcardType() || type.getSubtype().contains("yaml") || type.isWildcardSubtype())) {
                return Format.YAML;
            }
        }
        return Format.YAML;
    }
}
