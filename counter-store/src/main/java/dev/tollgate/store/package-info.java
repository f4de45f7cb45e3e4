/**
 * The narrow port to the counter store ({@link dev.tollgate.store.CounterStore}: run one Lua
 * script on one slot) and its Redis Cluster adapter on Lettuce, configured so that no spend is ever
 * sent twice or waited for without a deadline.
 */
package dev.tollgate.store;
