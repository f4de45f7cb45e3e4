package dev.tollgate.rules.override;

import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.rules.change.VersionedWrites.Written;
import io.swagger.v3.oas.annotations.Operation;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.security.Principal;
import java.util.List;

/** {@code /v1/overrides}: one override per account and rule; posting again replaces it. */
@RestController
class OverrideController {

    private final OverrideCatalog catalog;

    OverrideController(OverrideCatalog catalog) {
        this.catalog = catalog;
    }

    @Operation(summary = "Create (201) or replace (200) an account's override of a token-bucket rule")
    @PostMapping(path = "/v1/overrides", consumes = MediaType.APPLICATION_JSON_VALUE, produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<AccountOverride> put(@RequestBody OverrideRequest body, Principal who) {
        Written<AccountOverride> written = catalog.put(body, who.getName());
        return ResponseEntity.status(written.created() ? HttpStatus.CREATED : HttpStatus.OK).body(written.value());
    }

    @Operation(summary = "List overrides by account and/or rule; expired ones only with include_expired=true")
    @GetMapping(path = "/v1/overrides", produces = MediaType.APPLICATION_JSON_VALUE)
    List<AccountOverride> list(@RequestParam(name = "account_id", required = false) String accountId,
                               @RequestParam(name = "rule_id", required = false) String ruleId,
                               @RequestParam(name = "include_expired", defaultValue = "false") boolean includeExpired) {
        return catalog.list(accountId, ruleId, includeExpired);
    }

    @Operation(summary = "Delete an account's override of a rule")
    @DeleteMapping(path = "/v1/overrides/{account}/{rule}")
    ResponseEntity<Void> delete(@PathVariable String account, @PathVariable String rule,
                                @RequestParam(required = false) String reason, Principal who) {
        catalog.delete(account, rule, who.getName(), reason);
        return ResponseEntity.noContent().build();
    }
}
