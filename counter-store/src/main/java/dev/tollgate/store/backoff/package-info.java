/**
 * How long a caller waits before it tries a failing peer again ({@link dev.tollgate.store.backoff.Backoff}): the
 * store's connect attempts and a pod's rules watch share it. Here because the counter store is the lowest module
 * both depend on; it names nothing of the store.
 */
package dev.tollgate.store.backoff;
