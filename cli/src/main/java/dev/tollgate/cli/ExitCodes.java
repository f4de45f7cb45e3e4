package dev.tollgate.cli;

/**
 * What a run of {@code tollgate} ends with, one meaning each, so that a CI job can tell "the files are wrong" from
 * "the service could not be asked" from "this pull request changes the limits".
 */
public final class ExitCodes {

    /** Done: the files are valid, applied, exported, or (diff) would change nothing. */
    public static final int OK = 0;
    /** The answer is no: a file is invalid (offline or as the service judges it), or an apply was refused (409: the domain changed). */
    public static final int REFUSED = 1;
    /** No answer could be had: bad arguments, the service unreachable or too slow, the token refused (401, 403), a server error. */
    public static final int UNAVAILABLE = 2;
    /** A diff (or an apply's dry run) that would change something. */
    public static final int CHANGES = 3;

    private ExitCodes() {
    }

    /** Of the outcomes of several files, the one the run ends with: no answer, then no, then changes, then done. */
    static int worst(int a, int b) {
        return rank(a) >= rank(b) ? a : b;
    }

    private static int rank(int code) {
        return switch (code) {
            case UNAVAILABLE -> 3;
            case REFUSED -> 2;
            case CHANGES -> 1;
            default -> 0;
        };
    }
}
