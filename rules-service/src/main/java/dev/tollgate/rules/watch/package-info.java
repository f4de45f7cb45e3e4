/**
 * The watch feed pods follow: {@code GET /v1/watch?since=N} answers the whole snapshot as soon as the
 * store revision differs from N, else {@code 304} after a long poll. Waiting requests hold no thread and
 * no connection; one poller per instance reads the revision a few times a second and wakes them.
 */
package dev.tollgate.rules.watch;
