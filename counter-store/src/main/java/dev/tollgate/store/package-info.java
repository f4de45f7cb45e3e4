/**
 * The narrow port to the counter store ({@link dev.tollgate.store.CounterStore}: run one Lua script on one
 * slot), its Redis Cluster adapter on Lettuce, configured so that no spend is ever sent twice or waited for
 * without a deadline (on a client of its own or one it is handed), and an in-memory store held to the same
 * contract. The engine spends through it; the control path reads through {@code store.read}.
 */
package dev.tollgate.store;
