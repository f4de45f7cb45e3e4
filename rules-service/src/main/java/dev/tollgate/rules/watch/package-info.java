/**
 * The watch feed pods follow: {@code GET /v1/watch?since=N&region=X} answers the changes after N (or the
 * region's snapshot) as soon as the store revision differs from N, else {@code 304} after a long poll.
 * Waiting requests hold no thread and no connection; one poller per instance reads the revision a few
 * times a second and wakes them, and each answer is built once for all the pods that ask it.
 */
package dev.tollgate.rules.watch;
