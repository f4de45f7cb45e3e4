package dev.tollgate.gateway.key;

import org.springframework.util.ClassUtils;

import java.util.Locale;

/**
 * Where one attribute of a check by attributes is read from the exchange, as a route's configuration writes it:
 * {@code header:<name>}, {@code claim:<name>} (a claim of the JWT Spring Security has verified), {@code route-id} (the
 * Spring Cloud Gateway route's id), {@code path} (the path the caller asked for, before the route's filters rewrote
 * it), {@code remote-address} (the caller's IP, {@code tollgate.gateway.keys.trusted-proxies} hops from the right of
 * {@code X-Forwarded-For}) or {@code principal} (the authenticated principal's name).
 *
 * @param name the header's or claim's name; null for the other kinds
 */
public record AttributeSource(Kind kind, String name) {

    public enum Kind { HEADER, CLAIM, ROUTE_ID, PATH, REMOTE_ADDRESS, PRINCIPAL }

    static final String JWT_AUTHENTICATION = "org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken";
    private static final String FORMS = "header:<name>, claim:<name>, route-id, path, remote-address or principal";

    /**
     * The source {@code spec} names, for the error message {@code attribute} (the argument's name); refused with a
     * message saying what to write instead. A claim needs Spring Security's OAuth2 resource server on the class path:
     * without it nothing has verified the token, and an unverified JWT's claims are whatever its sender wrote.
     */
    public static AttributeSource parse(String attribute, String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException(attribute + " is empty; say where it is read from: " + FORMS);
        }
        String text = spec.strip();
        int colon = text.indexOf(':');
        String kind = (colon < 0 ? text : text.substring(0, colon)).toLowerCase(Locale.ROOT);
        String name = colon < 0 ? null : text.substring(colon + 1).strip();
        switch (kind) {
            case "header":
                return new AttributeSource(Kind.HEADER, named(attribute, spec, name));
            case "claim":
                if (!ClassUtils.isPresent(JWT_AUTHENTICATION, AttributeSource.class.getClassLoader())) {
                    throw new IllegalArgumentException(attribute + " is read from a JWT claim (" + spec + "), which needs Spring Security's "
                            + "OAuth2 resource server to verify the token (spring-boot-starter-security-oauth2-resource-server): Tollgate "
                            + "reads claims only from a JwtAuthenticationToken Spring Security has authenticated, never from an unverified "
                            + "Authorization header");
                }
                return new AttributeSource(Kind.CLAIM, named(attribute, spec, name));
            case "route-id":
                return unnamed(attribute, spec, name, Kind.ROUTE_ID);
            case "path":
                return unnamed(attribute, spec, name, Kind.PATH);
            case "remote-address":
                return unnamed(attribute, spec, name, Kind.REMOTE_ADDRESS);
            case "principal":
                return unnamed(attribute, spec, name, Kind.PRINCIPAL);
            default:
                throw new IllegalArgumentException(attribute + " is read from '" + spec + "', which is not a source; write one of " + FORMS);
        }
    }

    private static String named(String attribute, String spec, String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException(attribute + " is read from '" + spec + "' without a name: write e.g. header:X-Plan or claim:plan");
        }
        return name;
    }

    private static AttributeSource unnamed(String attribute, String spec, String name, Kind kind) {
        if (name != null) {
            throw new IllegalArgumentException(attribute + " is read from '" + spec + "', but " + kind.name().toLowerCase(Locale.ROOT).replace('_', '-')
                    + " takes no name");
        }
        return new AttributeSource(kind, null);
    }

    @Override
    public String toString() {
        String kind = kind().name().toLowerCase(Locale.ROOT).replace('_', '-');
        return name == null ? kind : kind + ":" + name;
    }
}
