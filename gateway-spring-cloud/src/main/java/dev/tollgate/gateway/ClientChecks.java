package dev.tollgate.gateway;

import dev.tollgate.client.CheckResult;
import dev.tollgate.client.FailMode;
import dev.tollgate.client.TollgateClient;
import dev.tollgate.client.TollgateProblemException;
import dev.tollgate.client.TollgateUnavailableException;
import dev.tollgate.common.check.CheckRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

import java.util.Map;

/**
 * Checks through tollgate-client: pooled keep-alive connections to check-service, the client's deadline, and its
 * fail mode when check-service is unreachable or late. A check that check-service refuses (a cost above a rule's
 * {@code max_cost}, a route configured with a rule id that is not one) is a mistake in the gateway's configuration:
 * it is logged and answered by the fail mode, so that the gateway's callers do not get a 500 for it.
 */
final class ClientChecks implements Checks {

    private static final Logger log = LoggerFactory.getLogger(ClientChecks.class);

    private final TollgateClient client;
    private final FailMode failMode;

    ClientChecks(TollgateClient client) {
        this.client = client;
        this.failMode = client.settings().failMode();
    }

    @Override
    public Mono<LimitAnswer> check(CheckRequest request) {
        return client.check(request)
                .map(ClientChecks::answer)
                .onErrorResume(TollgateProblemException.class, refused -> {
                    log.warn("Tollgate refused a check of domain {}: {} (answered by the fail mode {})", request.domain(), refused.getMessage(), failMode);
                    return Mono.just(byFailMode("refused: " + refused.code()));
                })
                .onErrorResume(TollgateUnavailableException.class, unavailable -> Mono.error(new IllegalStateException(
                        "Tollgate is unavailable and the client's fail mode is ERROR: " + unavailable.getMessage(), unavailable)));
    }

    private static LimitAnswer answer(CheckResult result) {
        return new LimitAnswer(result.allowed(), result.headers().asMap(),
                result.fallback() == null ? null : result.fallback().reason().name().toLowerCase());
    }

    private LimitAnswer byFailMode(String why) {
        return new LimitAnswer(failMode != FailMode.DENY, Map.of(), why);
    }
}
