package dev.tollgate.rules.console;

import java.util.List;

/**
 * What the key page's "why would a check be denied now?" panel shows: a pod's explain answer, entry by entry, or why
 * there is none (not set up, the pod unreachable or slow, the console's token refused, the pod's problem with the
 * request, an answer that could not be read). A failure is a value here, so the page always renders.
 *
 * @param outcome what happened, for the page's wording
 * @param status  the HTTP status the panel is served with: 200 for an answer, else what best says why there is none
 * @param title   the panel's headline when there is no answer
 * @param detail  why, in words; never the token
 * @param asked   the URL asked (no token in it), when one is configured
 * @param pod     the pod that answered, as it names itself; null when it did not
 * @param allowed whether the check as a whole would be allowed now; null without an answer
 * @param rows    one per entry, in the request's order
 * @param errors  the fields a problem names (the pod's {@code errors}, or the console's own checks of the form)
 */
record ExplainPanel(Outcome outcome, int status, String title, String detail, String asked, String pod, Boolean allowed,
                    List<Row> rows, List<String> errors) {

    enum Outcome { EXPLAINED, NOT_SET_UP, UNREACHABLE, REFUSED, PROBLEM, BAD_ANSWER }

    ExplainPanel {
        rows = List.copyOf(rows);
        errors = List.copyOf(errors);
    }

    /**
     * One entry of the answer, each value as the page prints it.
     *
     * @param override the override in force (rate, burst), or null; {@code overrideExpires} its expiry, "never" when it has none
     * @param level    the counter as the store holds it, "3 of 5 left, full in 1.2 s", or null when it could not be read
     */
    record Row(String rule, String key, String stage, boolean allowed, String why, String version, String override,
               String overrideExpires, String overrideReason, String share, String level, String limitKey, String shard) {
    }

    static ExplainPanel explained(String asked, String pod, boolean allowed, List<Row> rows) {
        return new ExplainPanel(Outcome.EXPLAINED, 200, null, null, asked, pod, allowed, rows, List.of());
    }

    static ExplainPanel notSetUp() {
        return new ExplainPanel(Outcome.NOT_SET_UP, 503, "Not set up",
                "This console asks no check-service pod: set tollgate.console.explain.url to a pod's (or its Service's) base URL and "
                        + "tollgate.console.explain.reader-token to one of the pods' tollgate.access.reader-tokens "
                        + "(the chart: rulesService.console.explain.readerTokenSecret).", null, null, null, List.of(), List.of());
    }

    static ExplainPanel failed(Outcome outcome, int status, String title, String detail, String asked, List<String> errors) {
        return new ExplainPanel(outcome, status, title, detail, asked, null, null, List.of(), errors);
    }

    public boolean answered() {
        return outcome == Outcome.EXPLAINED;
    }
}
