package dev.tollgate.check.envoy;

import dev.tollgate.common.check.CheckProblem;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.ProblemCodes;
import dev.tollgate.limiter.Limiter;
import dev.tollgate.limiter.Outcome;
import dev.tollgate.limiter.rules.DescriptorBook;
import dev.tollgate.limiter.rules.RuleBook;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
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
        AtomicReference<CompletableFuture<Outcome>> pending = new AtomicReference<>();
        Runnable cancel = () -> {
            CompletableFuture<Outcome> checking = pending.get();
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
        CompletableFuture<Outcome> checked;
        try {
            check = DescriptorCheck.of(request, descriptors, rules.index());
            if (!check.problems().isEmpty()) {
                call.fail(Status.INVALID_ARGUMENT.withDescription(check.describe(check.problems())),
                        RlsMetrics.Outcome.INVALID);
                return;
            }
            metrics.unmatched(check.unmatched());
            metrics.overridesIgnored(check.overridesIgnored());
            if (check.request().isEmpty()) {
                call.answer(EnvoyAnswers.noLimits(check), RlsMetrics.Outcome.OK);
                return;
            }
            checked = limiter.check(check.request().get());
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
        checked.whenComplete((outcome, error) -> {
            if (error == null) {
                outcome.match(new Answer(call, resolved));
            } else if (!(error instanceof CancellationException)) {
                log.error("unexpected failure of a ShouldRateLimit check", error);
                call.fail(Status.INTERNAL.withDescription("an unexpected error occurred"), RlsMetrics.Outcome.INTERNAL);
            }
        });
    }

    /** The engine's outcome as Envoy's answer: every outcome is a verdict Envoy applies, or an error it applies its own failure mode to. */
    private final class Answer implements Outcome.Cases<Void> {

        private final Call call;
        private final DescriptorCheck check;

        Answer(Call call, DescriptorCheck check) {
            this.call = call;
            this.check = check;
        }

        @Override
        public Void answered(CheckResponse response) {
            metrics.detailed(check, response);
            call.answer(EnvoyAnswers.of(check, response), response.allowed() ? RlsMetrics.Outcome.OK : RlsMetrics.Outcome.OVER_LIMIT);
            return null;
        }

        /** Only a fail-closed rule gets here: it denies, whatever Envoy's failure_mode_deny. */
        @Override
        public Void failedClosed(Outcome.FailedClosed failure) {
            call.answer(EnvoyAnswers.failedClosed(check, failure.entries(), failure.cause().code()), RlsMetrics.Outcome.FAILED_CLOSED);
            return null;
        }

        @Override
        public Void noRules() {
            call.fail(Status.UNAVAILABLE.withDescription(ProblemCodes.RULES_UNAVAILABLE + ": this pod holds no rules yet"),
                    RlsMetrics.Outcome.UNAVAILABLE);
            return null;
        }

        /**
         * Nothing was spent. A cost above its rule's largest is a request that could never pass: its descriptors are
         * OVER_LIMIT, as envoyproxy/ratelimit answers a hits_addend above the limit. An error would let Envoy allow
         * it, and a hits_addend can come from a request header through Envoy's rate limit actions. Anything else is
         * configuration only an operator sends (too many descriptors): INVALID_ARGUMENT, naming the descriptors.
         */
        @Override
        public Void invalid(List<CheckProblem> problems) {
            if (problems.stream().allMatch(problem -> problem.field().equals("cost") && !problem.entries().isEmpty())) {
                List<Integer> tooCostly = problems.stream().flatMap(problem -> problem.entries().stream()).toList();
                call.answer(EnvoyAnswers.overLimit(check, tooCostly), RlsMetrics.Outcome.OVER_LIMIT);
                return null;
            }
            call.fail(Status.INVALID_ARGUMENT.withDescription(check.describe(problems)), RlsMetrics.Outcome.INVALID);
            return null;
        }
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
