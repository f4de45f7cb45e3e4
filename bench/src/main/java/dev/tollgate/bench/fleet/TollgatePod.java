package dev.tollgate.bench.fleet;

import dev.tollgate.bench.load.Answer;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.EntryResult;
import dev.tollgate.limiter.Limiter;

import java.util.concurrent.CompletableFuture;

/** One pod running the real engine. An answer from the pod's fallback bucket (fail open) is told apart. */
public final class TollgatePod implements Gate {

    private final Limiter limiter;

    public TollgatePod(Limiter limiter) {
        this.limiter = limiter;
    }

    /** The pod's engine, for what a scenario reads of it besides its answers (its hot keys). */
    public Limiter limiter() {
        return limiter;
    }

    @Override
    public CompletableFuture<Answer> check(CheckRequest request) {
        // a fail-closed rule's store failure, like a defect, is a check the gateway could not pass on
        return limiter.check(request).handle((outcome, error) -> error != null ? Answer.FAILED
                : outcome.answered().map(TollgatePod::answer).orElse(Answer.FAILED));
    }

    static Answer answer(CheckResponse response) {
        boolean fallback = false;
        for (EntryResult entry : response.entries()) {
            fallback |= entry.fallback() != null;
        }
        if (fallback) {
            return response.allowed() ? Answer.FALLBACK_ALLOWED : Answer.FALLBACK_DENIED;
        }
        return response.allowed() ? Answer.ALLOWED : Answer.DENIED;
    }
}
