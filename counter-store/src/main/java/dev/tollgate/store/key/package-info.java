/**
 * The Redis layout: every key name, built server-side so that no character a caller sends can pick a slot
 * or collide two keys, and the usage windows pods write and the rebalancer reads.
 */
package dev.tollgate.store.key;
