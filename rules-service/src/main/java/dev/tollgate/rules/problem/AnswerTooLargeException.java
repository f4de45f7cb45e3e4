package dev.tollgate.rules.problem;

/**
 * 503 {@code answer_too_large}: the watch answer a pod asked for would be larger than
 * {@code tollgate.watch.max-answer-size}, so it is not built (a delta that large is replaced by the
 * region's snapshot first; this is a snapshot that large). The pod keeps the rules it holds and asks again.
 */
public final class AnswerTooLargeException extends RuntimeException {

    public AnswerTooLargeException(String what, long limit) {
        super(what + " is larger than " + limit + " bytes, tollgate.watch.max-answer-size: pods keep the rules they hold."
                + " Raise the limit (and the pods' own), or ask for one region's (region=).", null, false, false);
    }
}
