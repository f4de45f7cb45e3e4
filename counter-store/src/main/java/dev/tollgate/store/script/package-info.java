/**
 * The three counting algorithms as script calls: how a group of a request's entries that share one
 * key becomes the KEYS and ARGV of one atomic Lua script, and how its reply reads back. Pure code,
 * unit-tested without Redis; the scripts themselves are tested on a real cluster.
 */
package dev.tollgate.store.script;
