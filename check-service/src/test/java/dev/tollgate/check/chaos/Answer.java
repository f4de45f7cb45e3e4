package dev.tollgate.check.chaos;

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
