package dev.tollgate.common.check;

import java.util.List;

/** The caller sent a request Tollgate cannot check; each problem names the field it is about. */
public final class InvalidCheckRequestException extends RuntimeException {

    private final List<Problem> problems;

    public InvalidCheckRequestException(List<Problem> problems) {
        super(problems.isEmpty() ? "invalid request" : problems.get(0).field() + ": " + problems.get(0).message(),
                null, false, false);
        this.problems = List.copyOf(problems);
    }

    public List<Problem> problems() {
        return problems;
    }

    public record Problem(String field, String message) {
    }
}
