package dev.tollgate.client;

/**
 * Tollgate refused the check itself (a 4xx problem: {@code invalid_request}, {@code bad_request}, ...). Never
 * answered from the fail mode: the request is wrong and would be refused by every pod, and hiding that behind an
 * allow would leave the bug unseen.
 */
public final class TollgateProblemException extends RuntimeException {

    private final int status;
    private final String code;
    private final String body;

    TollgateProblemException(int status, String code, String detail, String body) {
        super(status + " " + code + (detail == null ? "" : ": " + detail));
        this.status = status;
        this.code = code;
        this.body = body;
    }

    public int status() {
        return status;
    }

    /** The problem's {@code code} member ({@code invalid_request}, ...), or null when the answer had none. */
    public String code() {
        return code;
    }

    /** The problem document as sent (its {@code errors} name the fields at fault). */
    public String body() {
        return body;
    }
}
