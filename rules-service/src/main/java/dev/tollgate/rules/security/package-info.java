/**
 * Who may do what: every endpoint but health takes a bearer token, a JWT checked by the OAuth2 resource
 * server in production (signature, expiry, and the configured issuer and audience), or a static token in
 * the {@code dev} profile only, which has no default value. Scopes split writes
 * ({@code ratelimit:admin}), reads ({@code ratelimit:read}) and the watch feed ({@code ratelimit:watch}).
 */
package dev.tollgate.rules.security;
