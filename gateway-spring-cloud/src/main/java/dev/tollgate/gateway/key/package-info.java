/**
 * Key resolvers for the {@code RequestRateLimiter} filter: the account (a header the gateway's authentication sets,
 * or the authenticated principal), the route, the caller's IP, and for a check by attributes the request's attributes
 * read from the exchange by each route's {@link dev.tollgate.gateway.key.AttributeSource}s. A key or attribute Tollgate
 * would refuse (empty, over 256 UTF-8 bytes, control characters) resolves to nothing, which the filter answers by its
 * {@code deny-empty-key}.
 */
package dev.tollgate.gateway.key;
