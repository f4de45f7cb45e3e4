package dev.tollgate.bench.fleet;

import dev.tollgate.bench.load.Answer;
import dev.tollgate.common.check.CheckRequest;

import java.util.concurrent.CompletableFuture;

/** One pod's limit check, whatever is behind it. Must not block: the load generator calls it on schedule. */
@FunctionalInterface
public interface Gate {

    CompletableFuture<Answer> check(CheckRequest request);
}
