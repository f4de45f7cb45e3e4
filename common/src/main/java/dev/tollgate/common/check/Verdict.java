package dev.tollgate.common.check;

/** The answer for a whole request, or for one entry of it. Serialised lower-case on the wire. */
public enum Verdict {
    ALLOW, DENY;

    public Verdict and(Verdict other) {
        return this == DENY || other == DENY ? DENY : ALLOW;
    }
}
