package dev.tollgate.common.check;

import dev.tollgate.common.rule.Identity;

import java.util.Locale;

/**
 * The names of what a request is, in a check by attributes: a rule's {@code match} is held against
 * {@link #PLAN} and {@link #ROUTE}, and its {@code identity} names the attribute its key is
 * ({@link #API_KEY}, {@link #IP}, {@link #USER}). Other attributes are carried and not used.
 */
public final class Attributes {

    public static final String PLAN = "plan";
    public static final String ROUTE = "route";
    public static final String API_KEY = "api_key";
    public static final String IP = "ip";
    public static final String USER = "user";

    /** A request is a handful of facts; a map of hundreds is an attack on the check, not a request. */
    public static final int MAX_ATTRIBUTES = 32;
    public static final int MAX_NAME = 64;
    /** A route or plan as long as a rule's match may be. */
    public static final int MAX_VALUE = 256;

    private Attributes() {
    }

    /** The attribute a rule of {@code identity} is keyed by. */
    public static String of(Identity identity) {
        return identity.name().toLowerCase(Locale.ROOT);
    }
}
