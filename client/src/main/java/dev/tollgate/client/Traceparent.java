package dev.tollgate.client;

/**
 * The W3C Trace Context {@code traceparent} header ({@code 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>}),
 * checked before it is sent: the value usually comes from a gateway's caller, and one that is not a traceparent
 * (too long, upper case, control characters) is dropped rather than sent, so that it can neither fail the check's
 * request nor reach check-service's logs as it came.
 */
final class Traceparent {

    static final String HEADER = "traceparent";
    private static final int LENGTH = 55;

    private Traceparent() {
    }

    /** The value when it is a version-00 traceparent with non-zero ids, else null. */
    static String valid(String value) {
        if (value == null || value.length() != LENGTH || value.charAt(2) != '-' || value.charAt(35) != '-' || value.charAt(52) != '-') {
            return null;
        }
        if (!value.startsWith("00")) {
            return null;
        }
        boolean traceIdZero = true;
        boolean parentIdZero = true;
        for (int i = 0; i < LENGTH; i++) {
            if (i == 2 || i == 35 || i == 52) {
                continue;
            }
            char c = value.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return null;
            }
            if (c != '0') {
                if (i > 2 && i < 35) {
                    traceIdZero = false;
                } else if (i > 35 && i < 52) {
                    parentIdZero = false;
                }
            }
        }
        return traceIdZero || parentIdZero ? null : value;
    }
}
