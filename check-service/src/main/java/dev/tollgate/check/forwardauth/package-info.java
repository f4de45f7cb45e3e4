/**
 * The forward-auth check: a gateway's subrequest carrying the original request's headers (nginx {@code auth_request},
 * Traefik ForwardAuth, APISIX forward-auth), read as a check by attributes and answered 2xx to pass or a deny.
 */
package dev.tollgate.check.forwardauth;
