package dev.tollgate.rules.console;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.MissingNode;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The console's one call to a check-service pod: {@code POST /v1/ratelimit:explain} with the configured reader's
 * token, bounded by a connect timeout and a deadline for the whole answer, its body capped. Every outcome, the pod's
 * refusals and silences included, comes back as an {@link ExplainPanel}: the key page renders whatever the pod does.
 * The token goes into the Authorization header and nowhere else (no log line, no page, no exception message).
 */
@Component
class PodExplain {

    private static final Logger log = LoggerFactory.getLogger(PodExplain.class);

    static final String PATH = "/v1/ratelimit:explain";
    /** An answer for a few entries is a few kB; a pod (or whatever the URL reaches) sending more is not answering explain. */
    static final int MAX_ANSWER_BYTES = 256 * 1024;
    /** What the page quotes of a pod's problem detail. */
    private static final int MAX_DETAIL = 500;
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final ExplainProperties properties;
    private final HttpClient http;

    PodExplain(ExplainProperties properties) {
        this.properties = properties;
        this.http = HttpClient.newBuilder()
                .connectTimeout(properties.connectTimeout())
                // a redirect would carry the token to wherever it points
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    boolean configured() {
        return properties.configured();
    }

    /** What a check of {@code rules} on {@code key} at {@code cost} would answer now, as the configured pod explains it. */
    ExplainPanel explain(String domain, String key, List<String> rules, long cost) {
        if (!configured()) {
            return ExplainPanel.notSetUp();
        }
        URI uri = explainUri();
        String asked = uri.toString();
        List<Map<String, Object>> entries = new ArrayList<>();
        for (String rule : rules) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("rule", rule);
            entry.put("key", key);
            entry.put("cost", cost);
            entries.add(entry);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("domain", domain);
        body.put("entries", entries);
        Duration deadline = properties.connectTimeout().plus(properties.readTimeout());
        HttpRequest request = HttpRequest.newBuilder(uri)
                .timeout(deadline)
                .header("Authorization", "Bearer " + properties.readerToken())
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, application/problem+json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
                .build();
        CompletableFuture<HttpResponse<byte[]>> answer = http.sendAsync(request, capped(MAX_ANSWER_BYTES));
        HttpResponse<byte[]> response;
        try {
            // the whole answer within the deadline, body included: a pod that sends headers and then dribbles is slow too
            response = answer.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            answer.cancel(true);
            return unreachable(asked, "did not answer within " + millis(deadline) + " (tollgate.console.explain.connect-timeout "
                    + millis(properties.connectTimeout()) + " + read-timeout " + millis(properties.readTimeout()) + ")");
        } catch (InterruptedException e) {
            answer.cancel(true);
            Thread.currentThread().interrupt();
            return unreachable(asked, "was not waited for: the console is stopping");
        } catch (ExecutionException e) {
            return failure(asked, e.getCause());
        }
        return read(asked, response);
    }

    private URI explainUri() {
        String base = properties.url().toString();
        return URI.create((base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + PATH);
    }

    private ExplainPanel failure(String asked, Throwable cause) {
        if (cause instanceof AnswerTooLarge) {
            return badAnswer(asked, "its answer was larger than " + MAX_ANSWER_BYTES / 1024 + " kB, which no explain answer is");
        }
        String why;
        if (cause instanceof HttpConnectTimeoutException) {
            why = "could not be connected to within " + millis(properties.connectTimeout()) + " (tollgate.console.explain.connect-timeout)";
        } else if (cause instanceof HttpTimeoutException) {
            why = "did not answer within " + millis(properties.connectTimeout().plus(properties.readTimeout()));
        } else if (cause instanceof ConnectException) {
            why = "refused the connection (nothing listens there, or the pod is not up)";
        } else if (cause instanceof IOException) {
            why = "broke the connection off (" + cause.getClass().getSimpleName() + ")";
        } else {
            why = "could not be asked (" + (cause == null ? "no cause" : cause.getClass().getSimpleName()) + ")";
        }
        return unreachable(asked, why);
    }

    private static ExplainPanel unreachable(String asked, String why) {
        log.warn("console: the check-service pod at {} {}", asked, why);
        return ExplainPanel.failed(ExplainPanel.Outcome.UNREACHABLE, 503, "The pod cannot be asked right now",
                "The check-service pod at " + asked + " " + why + ". Nothing was spent; retry in a few seconds.", asked, List.of());
    }

    private static ExplainPanel badAnswer(String asked, String why) {
        log.warn("console: the check-service pod at {} gave no explain answer: {}", asked, why);
        return ExplainPanel.failed(ExplainPanel.Outcome.BAD_ANSWER, 502, "The pod's answer cannot be read",
                "What answered at " + asked + " is not a check-service pod's explain: " + why
                        + ". Is tollgate.console.explain.url a check-service pod's base URL?", asked, List.of());
    }

    private ExplainPanel read(String asked, HttpResponse<byte[]> response) {
        int status = response.statusCode();
        JsonNode json;
        try {
            json = JSON.readTree(response.body());
        } catch (JacksonException e) {
            json = null;
        }
        if (status == 200) {
            if (json == null || !json.isObject() || !json.path("entries").isArray()) {
                return badAnswer(asked, "HTTP 200 without a JSON object of entries");
            }
            return explained(asked, json);
        }
        String podDetail = json != null && json.isObject() ? clip(json.path("detail").asString("")) : "";
        if (status == 401) {
            log.warn("console: the check-service pod at {} refused the console's reader token (401)", asked);
            return ExplainPanel.failed(ExplainPanel.Outcome.REFUSED, 502, "The pod refused the console's token",
                    "The check-service pod at " + asked + " answered 401: tollgate.console.explain.reader-token is not among its "
                            + "tollgate.access.reader-tokens (a gateway's service token is not a reader's). Nothing was spent.", asked, List.of());
        }
        if (status == 403) {
            log.warn("console: the check-service pod at {} refused the look (403)", asked);
            return ExplainPanel.failed(ExplainPanel.Outcome.REFUSED, 502, "The pod refused the look",
                    "The check-service pod at " + asked + " answered 403" + (podDetail.isEmpty() ? "" : ": " + podDetail)
                            + " Its tollgate.access.reader-tokens must include the console's tollgate.console.explain.reader-token.",
                    asked, List.of());
        }
        if (status == 400 || status == 422) {
            List<String> errors = new ArrayList<>();
            (json == null ? MissingNode.getInstance() : json).path("errors").forEach(error -> errors.add(clip(error.path("field").asString("") + ": " + error.path("message").asString(""))));
            return ExplainPanel.failed(ExplainPanel.Outcome.PROBLEM, status, "The pod cannot explain that",
                    podDetail.isEmpty() ? "The pod answered " + status + "." : podDetail, asked, errors);
        }
        if (status == 503 && !podDetail.isEmpty()) {
            // the pod has no rules yet, or its store cannot be read: its own words
            return ExplainPanel.failed(ExplainPanel.Outcome.PROBLEM, 503, "The pod cannot explain right now", podDetail, asked, List.of());
        }
        return badAnswer(asked, "HTTP " + status + (podDetail.isEmpty() ? "" : " (" + podDetail + ")"));
    }

    private static ExplainPanel explained(String asked, JsonNode json) {
        List<ExplainPanel.Row> rows = new ArrayList<>();
        for (JsonNode entry : json.path("entries")) {
            JsonNode override = entry.path("override");
            JsonNode level = entry.path("level");
            String overrideText = override.isObject()
                    ? override.path("rate_per_s").asString("?") + "/s, burst " + override.path("burst").asString("?") : null;
            String expires = override.isObject() ? (override.path("expires_at").isString() ? override.path("expires_at").asString() : "never") : null;
            rows.add(new ExplainPanel.Row(
                    entry.path("rule").asString(""),
                    entry.path("key").asString(""),
                    entry.path("stage").asString("?"),
                    entry.path("allowed").asBoolean(false),
                    entry.path("why").asString(""),
                    entry.has("version") ? entry.path("version").asString() : null,
                    overrideText,
                    expires,
                    override.isObject() ? override.path("reason").asString("") : null,
                    entry.path("share").isNumber() ? KeyPage.percent(entry.path("share").asDouble()) : null,
                    level.isObject() ? level(level) : null,
                    entry.path("limit_key").asString(null),
                    entry.path("shard").asString(null)));
        }
        String pod = json.path("pod").isString() ? json.path("pod").asString() : null;
        return ExplainPanel.explained(asked, pod, json.path("allowed").asBoolean(false), rows);
    }

    private static String level(JsonNode level) {
        long resetMs = level.path("reset_ms").asLong(0);
        return level.path("remaining").asString("?") + " of " + level.path("limit").asString("?") + " left"
                + (resetMs > 0 ? ", full in " + KeyPage.duration(Duration.ofMillis(resetMs)) : ", full")
                + (level.path("stored").asBoolean(true) ? "" : " (never written)");
    }

    private static String clip(String text) {
        return text.length() <= MAX_DETAIL ? text : text.substring(0, MAX_DETAIL) + "…";
    }

    private static String millis(Duration duration) {
        return duration.toMillis() % 1000 == 0 ? duration.toSeconds() + " s" : duration.toMillis() + " ms";
    }

    /** Thrown into the body's future when an answer passes the cap: the rest is not read. */
    private static final class AnswerTooLarge extends IOException {
        AnswerTooLarge() {
            super("the answer passed its size cap", null);
        }
    }

    /** The body as bytes, up to {@code max}: past it the subscription is cancelled and the future fails. */
    private static HttpResponse.BodyHandler<byte[]> capped(int max) {
        return info -> new HttpResponse.BodySubscriber<>() {
            private final HttpResponse.BodySubscriber<byte[]> bytes = HttpResponse.BodySubscribers.ofByteArray();
            private Flow.Subscription subscription;
            private long seen;
            private boolean done;

            @Override
            public CompletionStage<byte[]> getBody() {
                return bytes.getBody();
            }

            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                this.subscription = subscription;
                bytes.onSubscribe(subscription);
            }

            @Override
            public void onNext(List<ByteBuffer> items) {
                if (done) {
                    return;
                }
                seen += items.stream().mapToLong(ByteBuffer::remaining).sum();
                if (seen > max) {
                    done = true;
                    subscription.cancel();
                    bytes.onError(new AnswerTooLarge());
                    return;
                }
                bytes.onNext(items);
            }

            @Override
            public void onError(Throwable error) {
                if (!done) {
                    done = true;
                    bytes.onError(error);
                }
            }

            @Override
            public void onComplete() {
                if (!done) {
                    done = true;
                    bytes.onComplete();
                }
            }
        };
    }
}
