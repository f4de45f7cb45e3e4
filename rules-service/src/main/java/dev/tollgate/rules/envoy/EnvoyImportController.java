package dev.tollgate.rules.envoy;

import dev.tollgate.rules.change.IfMatch;
import io.swagger.v3.oas.annotations.Operation;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.util.UriComponentsBuilder;

import java.security.Principal;

/**
 * {@code POST /v1/imports/envoy-ratelimit}: one envoyproxy/ratelimit configuration file, as written, in the
 * body. The YAML media types are accepted under each of their names, and {@code text/plain} for a file sent
 * as it is from a shell.
 */
@RestController
class EnvoyImportController {

    private final EnvoyImport imports;

    EnvoyImportController(EnvoyImport imports) {
        this.imports = imports;
    }

    @Operation(summary = "Import one envoyproxy/ratelimit configuration file (YAML body): its rules and its domain's descriptor mapping,"
            + " in one transaction. 201 when it created something, 200 when all of it was stored already; dry_run=true answers"
            + " what it would do and stores nothing. 422 invalid_envoy_config for a file envoyproxy/ratelimit would refuse;"
            + " 409 import_conflict when a rule of it is stored with other values; replacing the domain's existing mapping"
            + " needs If-Match with its version, as PUT /v1/descriptors/{domain}")
    @PostMapping(path = "/v1/imports/envoy-ratelimit",
            consumes = {"application/yaml", "application/x-yaml", "text/yaml", MediaType.TEXT_PLAIN_VALUE},
            produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<ImportReport> importFile(@RequestBody(required = false) byte[] file,
                                            @RequestParam(name = "dry_run", defaultValue = "false") boolean dryRun,
                                            @RequestParam(required = false) String reason,
                                            @RequestHeader(name = HttpHeaders.IF_MATCH, required = false) String ifMatch,
                                            Principal who) {
        ImportReport report = imports.run(file, dryRun, IfMatch.parse(ifMatch), who.getName(), reason);
        if (dryRun || !report.wroteSomething()) {
            return ResponseEntity.ok(report);
        }
        // the domain's mapping is what the import is of; its rules are listed in the body
        return ResponseEntity.created(UriComponentsBuilder.fromPath("/v1/descriptors/{domain}").buildAndExpand(report.domain()).encode().toUri())
                .body(report);
    }
}
