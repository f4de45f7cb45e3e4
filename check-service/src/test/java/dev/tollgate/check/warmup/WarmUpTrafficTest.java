package dev.tollgate.check.warmup;

import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.wire.WireFormat;
import dev.tollgate.limiter.Limiter;
import dev.tollgate.limiter.Outcome;
import dev.tollgate.limiter.rules.DescriptorBook;
import dev.tollgate.store.InMemoryCounterStore;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A warm-up that sent checks the engine refuses would warm the refusal, not the check: every check of its cycle is
 * answered, some allowed and some denied, and every Envoy call of it resolves to its rules.
 */
class WarmUpTrafficTest {

    @Test
    void everyCheckOfTheCycleIsAnsweredAndBothVerdictsAreRun() throws Exception {
        Limiter engine = Limiter.builder(WarmUpTraffic.rules(), new InMemoryCounterStore(() -> System.currentTimeMillis() * 1_000)).build();
        int allowed = 0;
        int denied = 0;
        for (int round = 0; round < 3; round++) {
            for (int n = 0; n < WarmUpTraffic.KEYS; n++) {
                CheckRequest check = WarmUpTraffic.check(n);
                Outcome outcome = engine.check(check).get(5, TimeUnit.SECONDS);
                assertThat(outcome).as("check %d: %s", n, check).isInstanceOf(Outcome.Answered.class);
                CheckResponse response = ((Outcome.Answered) outcome).response();
                if (response.allowed()) {
                    allowed++;
                } else {
                    denied++;
                }
            }
        }
        assertThat(allowed).isPositive();
        assertThat(denied).isPositive();
    }

    @Test
    void everyEnvoyCallResolvesToItsRules() {
        DescriptorBook descriptors = WarmUpTraffic.descriptors();
        List<RateLimitRequest> calls = WarmUpTraffic.rlsRequests();
        assertThat(calls).hasSize(WarmUpTraffic.KEYS);
        for (RateLimitRequest call : calls) {
            for (RateLimitDescriptor descriptor : call.getDescriptorsList()) {
                List<String> keys = descriptor.getEntriesList().stream().map(RateLimitDescriptor.Entry::getKey).toList();
                List<String> values = descriptor.getEntriesList().stream().map(RateLimitDescriptor.Entry::getValue).toList();
                assertThat(descriptors.resolve(call.getDomain(), keys, values)).as("%s", descriptor).get()
                        .isInstanceOf(DescriptorBook.Limited.class);
            }
        }
    }

    @Test
    void everyBodyIsItsCheckWhicheverWayItIsSpelled() {
        JsonMapper strict = WireFormat.strict(WireFormat.configure(JsonMapper.builder())).build();
        int spaced = 0;
        int costLeftOut = 0;
        for (int n = 0; n < WarmUpTraffic.KEYS; n++) {
            String body = new String(WarmUpTraffic.body(n), StandardCharsets.UTF_8);
            assertThat(meaning(strict.readValue(body, CheckRequest.class))).as(body).isEqualTo(meaning(WarmUpTraffic.check(n)));
            spaced += body.contains("\n") ? 1 : 0;
            costLeftOut += body.contains("\"cost\"") ? 0 : 1;
        }
        assertThat(spaced).as("bodies with whitespace between tokens").isPositive().isLessThan(WarmUpTraffic.KEYS);
        assertThat(costLeftOut).as("bodies that leave a cost of one out").isPositive().isLessThan(WarmUpTraffic.KEYS);
    }

    /** A check as the engine takes it: a cost left out is a cost of one. */
    private static String meaning(CheckRequest check) {
        if (check.byAttributes()) {
            return check.domain() + " " + check.attributes() + " x" + (check.cost() == null ? 1 : check.cost().intValueExact());
        }
        return check.domain() + " " + check.entries().stream().map(e -> e.rule() + "/" + e.key() + " x" + e.costValue()).toList();
    }

    @Test
    void eachHttpRequestIsOneWholeRequestWithItsLength() {
        for (byte[] request : WarmUpTraffic.httpRequests("127.0.0.1:1", "/v1/ratelimit:check", "a-token-of-sixteen-chars")) {
            String text = new String(request, StandardCharsets.ISO_8859_1);
            int split = text.indexOf("\r\n\r\n");
            String head = text.substring(0, split);
            String body = text.substring(split + 4);
            assertThat(head).startsWith("POST /v1/ratelimit:check HTTP/1.1\r\n").containsIgnoringCase("content-length: " + body.length())
                    .containsIgnoringCase("authorization: Bearer a-token-of-sixteen-chars");
            assertThat(body).startsWith("{").endsWith("}");
        }
    }
}
