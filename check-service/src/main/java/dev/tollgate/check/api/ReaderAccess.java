package dev.tollgate.check.api;

import dev.tollgate.check.access.ReaderTokens;
import dev.tollgate.common.check.ProblemCodes;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ServerHttpResponse;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The paths a reader's token opens, and the handlers' own check of it: what they show (an account's limits,
 * override and counters, the keys taking a pod's store calls) is no gateway's business, and a reader's token
 * spends nothing. The filter in front lets a reader's token through to these paths only; each handler checks it
 * again, on what the router matched, so a spelling of the path the filter misses meets both checks.
 */
final class ReaderAccess {

    /** The reader's paths as the router matches them, segment by segment. */
    static final Set<List<String>> PATHS = Set.of(ExplainController.PATH_SEGMENTS, HotKeysController.PATH_SEGMENTS);

    private ReaderAccess() {
    }

    /** Why this caller may not read, when it may not: 403 with no reader's token configured, 401 without one. */
    static Optional<ProblemAnswer> refusal(ReaderTokens readers, String authorization, ServerHttpResponse http) {
        if (!readers.configured()) {
            return Optional.of(new ProblemAnswer(CheckProblems.problem(HttpStatus.FORBIDDEN, ProblemCodes.FORBIDDEN,
                    "This pod shows nothing to readers: none of their tokens is configured (tollgate.access.reader-tokens).")));
        }
        if (!readers.accepts(authorization)) {
            http.getHeaders().set(HttpHeaders.WWW_AUTHENTICATE, "Bearer");
            return Optional.of(new ProblemAnswer(CheckProblems.problem(HttpStatus.UNAUTHORIZED, ProblemCodes.UNAUTHORIZED,
                    "This needs a reader's token (tollgate.access.reader-tokens): Authorization: Bearer <token>. A gateway's service token is not one.")));
        }
        return Optional.empty();
    }
}
