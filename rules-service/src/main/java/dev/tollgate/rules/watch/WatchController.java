package dev.tollgate.rules.watch;

import dev.tollgate.common.rule.RuleSnapshot;
import dev.tollgate.rules.problem.BadRequestException;
import io.swagger.v3.oas.annotations.Operation;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;

/**
 * {@code GET /v1/watch?since=N}. A 200 always carries a whole snapshot; "nothing changed" is a 304 with
 * no body, so a pod can never mistake an empty answer for "there are no rules".
 */
@RestController
class WatchController {

    private final RevisionWatcher watcher;

    WatchController(RevisionWatcher watcher) {
        this.watcher = watcher;
    }

    @Operation(summary = "Long-poll for the rules snapshot: 200 with the snapshot when the store revision differs from since"
            + " (or since is absent), else 304 after the watch timeout (25 s)")
    @GetMapping(path = "/v1/watch", produces = MediaType.APPLICATION_JSON_VALUE)
    DeferredResult<ResponseEntity<RuleSnapshot>> watch(@RequestParam(required = false) Long since) {
        if (since != null && since < 0) {
            throw new BadRequestException("since must be a revision (0 or more), was " + since);
        }
        return watcher.watch(since);
    }
}
