package dev.tollgate.rules.watch;

import dev.tollgate.common.validation.RuleValidator;
import dev.tollgate.rules.problem.BadRequestException;
import dev.tollgate.common.rule.RuleChanges;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;

/**
 * {@code GET /v1/watch?since=N&region=X}. A 200 always carries something whole to apply: for a pod naming
 * its region, the changes since N ({@code "kind":"delta"}) or the region's snapshot ({@code "kind":"snapshot"});
 * for an older pod, the bare snapshot of every region. "Nothing changed" is a 304 with no body, so a pod
 * can never mistake an empty answer for "there are no rules".
 */
@RestController
class WatchController {

    /** A region names budget rows, whose region column holds text of this size at most in any sane deployment. */
    private static final int MAX_REGION = 128;

    private final RevisionWatcher watcher;

    WatchController(RevisionWatcher watcher) {
        this.watcher = watcher;
    }

    @Operation(summary = "Long-poll for the rules: 200 when the store revision differs from since (or since is absent): with"
            + " region, the delta since that revision (kind delta) or the region's snapshot (kind snapshot); without, the whole"
            + " snapshot of every region. Else 304 after the watch timeout (25 s)")
    // the body is built once as bytes and shared by every pod that asks; this says what the bytes are
    @ApiResponse(responseCode = "200", description = "what changed, or everything",
            content = @Content(mediaType = MediaType.APPLICATION_JSON_VALUE, schema = @Schema(implementation = RuleChanges.class)))
    @ApiResponse(responseCode = "304", description = "nothing changed within the watch timeout")
    @GetMapping(path = "/v1/watch", produces = MediaType.APPLICATION_JSON_VALUE)
    DeferredResult<ResponseEntity<byte[]>> watch(@RequestParam(required = false) Long since,
                                                 @RequestParam(required = false) String region) {
        if (since != null && since < 0) {
            throw new BadRequestException("since must be a revision (0 or more), was " + since);
        }
        if (region != null && (region.isBlank() || !RuleValidator.isStorableText(region, MAX_REGION))) {
            throw new BadRequestException("region must be a region's name (1-" + MAX_REGION + " characters, no control characters)");
        }
        return watcher.watch(since, region);
    }
}
