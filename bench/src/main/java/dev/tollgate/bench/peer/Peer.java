package dev.tollgate.bench.peer;

import dev.tollgate.bench.load.Answer;

import java.util.concurrent.CompletableFuture;

/** One limiter under test: spend one token of {@code key}'s limit, and count the store calls that took. */
public interface Peer {

    String name();

    CompletableFuture<Answer> acquire(String key);

    /** Redis commands or script calls sent so far, retries included. */
    long storeCalls();
}
