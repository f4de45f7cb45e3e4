/**
 * Key resolvers for the {@code RequestRateLimiter} filter: the account (a header the gateway's authentication sets,
 * or the authenticated principal), the route, and the caller's IP. A key Tollgate would refuse (empty, over 256
 * UTF-8 bytes, control characters) resolves to nothing, which the filter answers by its {@code deny-empty-key}.
 */
package dev.tollgate.gateway.key;
