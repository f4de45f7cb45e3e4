package dev.tollgate.check.envoy;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.InvalidCheckRequestException;
import dev.tollgate.limiter.Limiter;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.RulesNotLoadedException;
import dev.tollgate.limiter.rules.RuleBook;
import dev.tollgate.store.StoreException;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit} over the engine the HTTP check uses.
 *
 * <p>A store failure is answered as the rules say, always with a verdict: a fail-open rule's fallback
 * verdict comes back as an ordinary answer; a fail-closed rule's descriptors answer {@code OVER_LIMIT}
 * with {@code x-tollgate-degraded: store_timeout|store_unavailable}. Envoy treats an error of the call as
 * the service failing and applies its one {@code failure_mode_deny} to every rule alike: with it off a login
 * limit would fail open, with it on every hiccup would deny the whole API. Only a pod with no rules yet
 * fails the call ({@code UNAVAILABLE}, {@code rules_unavailable}): it cannot tell which rules fail closed,
 * so Envoy's own failure mode decides, as for a service it cannot reach. A call whose deadline passes (or whose caller
 * goes away) is cancelled: its answer is dropped and it stops counting as in flight; what the engine
 * still has out is bounded by the check's own deadline.
 */
final class RateLimitGrpcService extends RateLimitServiceGrpc.RateLimitServiceImplBase {

    private static final Logger log = LoggerFactory.getLogger(RateLimitGrpcService.class);

    private final Limiter limiter;
    private final DescriptorBook descriptors;
    private final RuleBook rules;
    private final RlsMetrics metrics;

    RateLimitGrpcService(Limiter limiter, DescriptorBook descriptors, RuleBook rules, RlsMetrics metrics) {
        this.limiter = limiter;
        this.descriptors = descriptors;
        this.rules = rules;
        this.metrics = metrics;
    }

    @Override
    public void shouldRateLimit(RateLimitRequest request, StreamObserver<RateLimitResponse> answer) {
        metrics.started();
        Call call = new Call((ServerCallStreamObserver<RateLimitResponse>) answer);
        AtomicReference<CompletableFuture<CheckResponse>> pending = new AtomicReference<>();
        Runnable cancel = () -> {
            CompletableFuture<CheckResponse> checking = pending.get();
            if (checking != null) {
                checking.cancel(false);
            }
            call.cancelled();
        };
        // set before anything can answer: with a handler, an answer after cancellation is dropped, not thrown
        call.observer.setOnCancelHandler(cancel);
        // the context is cancelled by the transport when the deadline passes or the caller goes away, even while
        // this thread is still busy: the call ends then, not when the engine's own deadline would end it
        Context context = Context.current();
        context.addListener(cancelled -> cancel.run(), Runnable::run);
        if (call.observer.isCancelled() || context.isCancelled()) {
            // the deadline passed before the call reached us: spend nothing for an answer nobody reads
            call.cancelled();
            return;
        }
        DescriptorCheck check;
        CompletableFuture<CheckResponse> checked;
        try {
            check = DescriptorCheck.of(request, descriptors);
            metrics.unmatched(unmatched(check));
            if (check.request() == null) {
                call.answer(EnvoyAnswers.noLimits(request.getDescriptorsCount()), RlsMetrics.Outcome.OK);
                return;
            }
            try {
                checked = limiter.check(check.request());
            } catch (InvalidCheckRequestException e) {
                call.fail(Status.INVALID_ARGUMENT.withDescription(check.describe(e)), RlsMetrics.Outcome.INVALID);
                return;
            }
        } catch (InvalidCheckRequestException e) {
            call.fail(Status.INVALID_ARGUMENT.withDescription(e.getMessage()), RlsMetrics.Outcome.INVALID);
            return;
        } catch (RuntimeException e) {
            log.error("unexpected failure of a ShouldRateLimit call", e);
            call.fail(Status.INTERNAL.withDescription("an unexpected error occurred"), RlsMetrics.Outcome.INTERNAL);
            return;
        }
        pending.set(checked);
        if (context.isCancelled()) {
            checked.cancel(false);
        }
        DescriptorCheck resolved = check;
        checked.whenComplete((response, error) -> {
            if (error == null) {
                call.answer(EnvoyAnswers.of(resolved, response), response.allowed() ? RlsMetrics.Outcome.OK : RlsMetrics.Outcome.OVER_LIMIT);
            } else if (!(error instanceof CancellationException)) {
                failed(call, resolved, error instanceof CompletionException ? error.getCause() : error);
            }
        });
    }

    private void failed(Call call, DescriptorCheck check, Throwable error) {
        if (error instanceof StoreException store) {
            // only a fail-closed rule gets here: it denies, whatever Envoy's failure_mode_deny
            String reason = store.kind() == StoreException.Kind.TIMEOUT ? "store_timeout" : "store_unavailable";
            call.answer(EnvoyAnswers.failedClosed(check, failsClosed(check.request()), reason), RlsMetrics.Outcome.FAILED_CLOSED);
        } else if (error instanceof RulesNotLoadedException) {
            call.fail(Status.UNAVAILABLE.withDescription("rules_unavailable: this pod holds no rules yet"), RlsMetrics.Outcome.UNAVAILABLE);
        } else {
            log.error("unexpected failure of a ShouldRateLimit check", error);
            call.fail(Status.INTERNAL.withDescription("an unexpected error occurred"), RlsMetrics.Outcome.INTERNAL);
        }
    }

    /** For each of the check's entries, whether its rule denies when its shard cannot answer (as the engine decides). */
    private boolean[] failsClosed(CheckRequest request) {
        RuleBook view = rules.view();
        boolean[] closed = new boolean[request.entries().size()];
        for (int i = 0; i < closed.length; i++) {
            CheckEntry entry = request.entries().get(i);
            Rule rule = view.find(request.domain(), entry.rule(), entry.key());
            closed[i] = rule != null && rule.failsClosed() && !rule.shadow();
        }
        return closed;
    }

    private static int unmatched(DescriptorCheck check) {
        int unmatched = 0;
        for (int entry : check.entryOf()) {
            if (entry < 0) {
                unmatched++;
            }
        }
        return unmatched;
    }

    /** One call's ending, exactly once: answered, failed or cancelled, whichever comes first. */
    private final class Call {

        final ServerCallStreamObserver<RateLimitResponse> observer;
        private final AtomicBoolean ended = new AtomicBoolean();

        Call(ServerCallStreamObserver<RateLimitResponse> observer) {
            this.observer = observer;
        }

        void answer(RateLimitResponse response, RlsMetrics.Outcome outcome) {
            if (ended.compareAndSet(false, true)) {
                metrics.ended(outcome);
                observer.onNext(response);
                observer.onCompleted();
            }
        }

        void fail(Status status, RlsMetrics.Outcome outcome) {
            if (ended.compareAndSet(false, true)) {
                metrics.ended(outcome);
                observer.onError(status.asRuntimeException());
            }
        }

        void cancelled() {
            if (ended.compareAndSet(false, true)) {
                metrics.ended(RlsMetrics.Outcome.CANCELLED);
            }
        }
    }
}
