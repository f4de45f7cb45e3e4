/**
 * What support needs on a call with a merchant: for one key, what is left of each limit in this
 * region's Redis Cluster, which overrides apply and how the key's budget is split across regions.
 */
package dev.tollgate.rules.usage;
