package dev.tollgate.check.chaos;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.http.HttpResponse;

/**
 * What one request got, as the client saw it. Every request the load sends ends as exactly one answer, including
 * those that got none ({@link Kind#CLIENT_TIMEOUT}) or whose connection failed ({@link Kind#FAILED}).
 *
 * @param pod          which pod it was sent to (index into the scenario's pods)
 * @param sentNanos    {@link System#nanoTime()} just before sending
 * @param sentWallMs   the wall clock at the same moment (fixed windows are aligned to it)
 * @param latencyNanos until the answer was read, or until the client gave up
 * @param status       the HTTP status, or 0 without an answer
 * @param verdict      the entry's verdict ({@code allow}/{@code deny}) on a 200
 * @param fallback     the entry's {@code fallback} member, null when the store answered
 * @param code         the problem's {@code code} on an error status
 * @param error        what went wrong on the client side, for the report
 */
record Answer(Target target, int pod, long sentNanos, long sentWallMs, long latencyNanos, Kind kind, int status,
              String verdict, String fallback, boolean unknownRule, String code, String error) {

    enum Kind { ANSWERED, CLIENT_TIMEOUT, FAILED }

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** The answer a check got, read from its response as it arrives: its latency ends now. */
    static Answer of(Target target, int pod, long sentNanos, long sentWall, HttpResponse<String> response) {
        long latency = System.nanoTime() - sentNanos;
        int status = response.statusCode();
        String verdict = null;
        String fallback = null;
        String code = null;
        boolean unknown = false;
        try {
            JsonNode body = JSON.readTree(response.body());
            if (status == 200) {
                JsonNode entry = body.path("entries").path(0);
                verdict = entry.path("verdict").stringValue(null);
                fallback = entry.path("fallback").stringValue(null);
                unknown = entry.path("unknown_rule").booleanValue(false);
            } else {
                code = body.path("code").stringValue(null);
            }
        } catch (JacksonException e) {
            code = "unreadable body: " + abbreviate(response.body());
        }
        return new Answer(target, pod, sentNanos, sentWall, latency, Kind.ANSWERED, status, verdict, fallback, unknown, code, null);
    }

    /** A check that got no answer: the client gave up now, or its connection failed. */
    static Answer none(Target target, int pod, long sentNanos, long sentWall, Kind kind, Throwable error) {
        return new Answer(target, pod, sentNanos, sentWall, System.nanoTime() - sentNanos, kind, 0, null, null, false, null, error.toString());
    }

    private static String abbreviate(String text) {
        return text == null ? "null" : text.length() > 120 ? text.substring(0, 120) + "..." : text;
    }

    boolean answered() {
        return kind == Kind.ANSWERED;
    }

    /** Let through: the gateway would serve the request. */
    boolean admitted() {
        return answered() && status == 200 && "allow".equals(verdict);
    }

    boolean failedClosed() {
        return answered() && (status == 503 || status == 504);
    }

    /** Not a verdict from the store: a fail mode answered, or nothing did. */
    boolean degraded() {
        return !answered() || failedClosed() || fallback != null;
    }

    long answeredNanos() {
        return sentNanos + latencyNanos;
    }

    long answeredWallMs() {
        return sentWallMs + latencyNanos / 1_000_000;
    }

    double latencyMs() {
        return latencyNanos / 1e6;
    }

    /** One line for a violation: which limit, which pod, when, and what came back. */
    String describe(long originNanos) {
        String when = String.format("sent at +%.3f s", (sentNanos - originNanos) / 1e9);
        String what = switch (kind) {
            case CLIENT_TIMEOUT -> String.format("no answer within %.0f ms", latencyMs());
            case FAILED -> "failed after " + String.format("%.0f ms", latencyMs()) + ": " + error;
            case ANSWERED -> status + (code != null ? " " + code : "") + (verdict != null ? " " + verdict : "")
                    + (fallback != null ? " fallback=" + fallback : "") + (unknownRule ? " unknown_rule" : "")
                    + String.format(" in %.1f ms", latencyMs());
        };
        return target + " on pod " + pod + ", " + when + ": " + what;
    }
}
