package dev.tollgate.bench.soak;

import dev.tollgate.bench.BenchOptions.Protocol;
import dev.tollgate.bench.load.Answer;
import dev.tollgate.bench.soak.SoakTraffic.Check;
import dev.tollgate.bench.soak.SoakTraffic.Kind;
import dev.tollgate.bench.wire.ChartPod;
import dev.tollgate.bench.wire.GrpcWireClient;
import dev.tollgate.bench.wire.HttpWireClient;
import dev.tollgate.client.affinity.Rendezvous;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Sends the soak's checks to the two pods as gateways do. Over HTTP as tollgate-client sends them: each to its key's
 * pod (rendezvous hashing over the pods' addresses), a pod that refuses the connection skipped for the key's next pod
 * within the same check (nothing was sent, so nothing can be spent twice) and passed over for {@link #POD_DOWN_FOR}.
 * Over gRPC as Envoy calls its cluster: the pods in turn, a refusing one passed over alike. A check whose connection
 * breaks after it was sent is never sent again (it may have been spent): it is counted {@link Outcome#BROKEN}.
 * Every check ends in the {@link Ledger}, by when it was due.
 */
final class SoakLoad implements AutoCloseable {

    /** tollgate-client's default deadline: an answer after it reaches the gateway too late to be used. */
    static final Duration IN_TIME = Duration.ofMillis(100);
    /** A check not answered by then is unanswered. */
    static final Duration RESPONSE_TIMEOUT = Duration.ofSeconds(2);
    /** tollgate-client's podDownFor. */
    static final Duration POD_DOWN_FOR = Duration.ofSeconds(2);
    static final int HTTP_CONNECTIONS = 8;
    static final int GRPC_CHANNELS = 2;
    /** The share of checks sent over Envoy's gRPC; the rest over HTTP/1.1. */
    static final double GRPC_SHARE = 0.2;

    private final List<ChartPod> pods;
    private final SoakTraffic traffic;
    private final Ledger ledger;
    private final long startNanos;
    private final Rendezvous ring;
    private final List<HttpWireClient> http = new ArrayList<>();
    private final List<GrpcWireClient> grpc = new ArrayList<>();
    private final AtomicLongArray downUntil;
    private final LongAdder[] answeredBy;

    SoakLoad(List<ChartPod> pods, SoakTraffic traffic, Ledger ledger, long startNanos) {
        this.pods = List.copyOf(pods);
        this.traffic = traffic;
        this.ledger = ledger;
        this.startNanos = startNanos;
        this.ring = Rendezvous.of(pods.stream().map(pod -> "127.0.0.1:" + pod.httpPort()).toList());
        this.downUntil = new AtomicLongArray(pods.size());
        this.answeredBy = new LongAdder[pods.size()];
        for (int i = 0; i < pods.size(); i++) {
            ChartPod pod = pods.get(i);
            http.add(new HttpWireClient(Protocol.HTTP1, "127.0.0.1", pod.httpPort(), HTTP_CONNECTIONS, RESPONSE_TIMEOUT));
            grpc.add(new GrpcWireClient("127.0.0.1", pod.grpcPort(), GRPC_CHANNELS, RESPONSE_TIMEOUT));
            answeredBy[i] = new LongAdder();
        }
    }

    /** Checks pod {@code i} answered so far (any answer, over either protocol). */
    long answeredBy(int i) {
        return answeredBy[i].sum();
    }

    /** Check {@code sequence}, due at {@code sequence ÷ rate} of the soak: the open loop's sender. */
    CompletableFuture<Answer> send(long sequence, double rate) {
        long due = startNanos + (long) (sequence * 1e9 / rate);
        Check check = traffic.next();
        boolean overGrpc = ThreadLocalRandom.current().nextDouble() < GRPC_SHARE;
        int first = overGrpc ? (int) Math.floorMod(sequence, (long) pods.size()) : ring.first(check.key().isEmpty() ? "-" : check.key());
        CompletableFuture<Answer> done = new CompletableFuture<>();
        attempt(check, overGrpc, preferUp(first), due, System.nanoTime(), false, done);
        return done;
    }

    /** {@code first}, unless it is passed over as down and the other is not. */
    private int preferUp(int first) {
        long now = System.nanoTime();
        if (downUntil.get(first) > now) {
            int other = (first + 1) % pods.size();
            if (downUntil.get(other) <= now) {
                return other;
            }
        }
        return first;
    }

    private void attempt(Check check, boolean overGrpc, int pod, long due, long sent, boolean retried, CompletableFuture<Answer> done) {
        if (overGrpc) {
            grpc.get(pod).call(check.wire().envoy()).whenComplete((response, error) -> {
                if (error == null) {
                    finish(check, due, sent, pod, Outcome.ofGrpc(check.kind(), response), null, done);
                } else if (refused(error) && !retried) {
                    reroute(check, true, pod, due, sent, done);
                } else {
                    finish(check, due, sent, pod, grpcFailure(check, error), error, done);
                }
            });
        } else {
            http.get(pod).exchange(check.wire().json()).whenComplete((reply, error) -> {
                if (error == null) {
                    Outcome outcome = Outcome.ofHttp(check.kind(), reply.status(), reply.body());
                    if (outcome == Outcome.WRONG) {
                        ledger.wrong(check.kind().label + " over HTTP: " + reply.status() + " " + snippet(reply.body()));
                    }
                    finish(check, due, sent, pod, outcome, null, done);
                } else if (refused(error) && !retried) {
                    reroute(check, false, pod, due, sent, done);
                } else {
                    finish(check, due, sent, pod, refused(error) ? Outcome.NO_POD : httpFailure(error), error, done);
                }
            });
        }
    }

    private void reroute(Check check, boolean overGrpc, int refusing, long due, long sent, CompletableFuture<Answer> done) {
        downUntil.set(refusing, System.nanoTime() + POD_DOWN_FOR.toNanos());
        ledger.rerouted((due - startNanos) / 1e9);
        attempt(check, overGrpc, (refusing + 1) % pods.size(), due, sent, true, done);
    }

    private Outcome grpcFailure(Check check, Throwable error) {
        Outcome outcome = ofGrpcFailure(check.kind(), error);
        if (outcome == Outcome.WRONG) {
            ledger.wrong(check.kind().label + " over gRPC: " + ((StatusRuntimeException) unwrap(error)).getStatus());
        }
        return outcome;
    }

    /**
     * A failed call: a status the pod sent is judged ({@link Outcome#ofGrpcStatus}); a failure of the client's own
     * transport (the connection refused, reset or closed under the call: UNAVAILABLE, CANCELLED, or any status whose cause
     * is an I/O error, as grpc-java's UNKNOWN "channel closed" of a call on a connection the pod's death closed) is no
     * answer of the pod's.
     */
    static Outcome ofGrpcFailure(Kind kind, Throwable error) {
        if (!(unwrap(error) instanceof StatusRuntimeException status)) {
            return Outcome.BROKEN;
        }
        if (refused(error)) {
            return Outcome.NO_POD;
        }
        Status.Code code = status.getStatus().getCode();
        if (code == Status.Code.UNAVAILABLE || code == Status.Code.CANCELLED || status.getStatus().getCause() instanceof java.io.IOException) {
            return Outcome.BROKEN;
        }
        return Outcome.ofGrpcStatus(kind, code);
    }

    private static Outcome httpFailure(Throwable error) {
        Throwable cause = unwrap(error);
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof TimeoutException || t.getClass().getSimpleName().contains("Timeout")) {
                return Outcome.TIMED_OUT;
            }
        }
        return Outcome.BROKEN;
    }

    private void finish(Check check, long due, long sent, int pod, Outcome outcome, Throwable error, CompletableFuture<Answer> done) {
        long now = System.nanoTime();
        long took = now - due;
        if (outcome.answered()) {
            answeredBy[pod].increment();
        } else if (error != null) {
            Throwable cause = unwrap(error);
            ledger.unanswered(outcome.label + ": " + cause.getClass().getSimpleName() + " " + firstLine(cause.getMessage()));
        }
        // an answer past the response timeout cannot come: a check cut off by it is TIMED_OUT, never late
        boolean late = outcome.answered() && took > IN_TIME.toNanos();
        ledger.record((due - startNanos) / 1e9, check.kind(), check.shard(), outcome, late, late && now - sent > IN_TIME.toNanos());
        done.complete(switch (outcome) {
            case ENFORCED, FALLBACK, REFUSED -> Answer.ALLOWED;
            case FAILED_CLOSED -> Answer.DENIED;
            default -> Answer.FAILED;
        });
    }

    /** Whether nothing was sent: the connection was refused (the pod is down). */
    static boolean refused(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof ConnectException) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    private static Throwable unwrap(Throwable error) {
        Throwable t = error;
        while ((t instanceof java.util.concurrent.CompletionException || t instanceof java.util.concurrent.ExecutionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        // a port or an address in a message would make each reason its own example
        String line = message.lines().findFirst().orElse("")
                .replaceAll("\\d+\\.\\d+\\.\\d+\\.\\d+:\\d+", "<addr>").replaceAll("L:/\\S+|R:/\\S+|id: 0x\\w+", "")
                .replaceAll("\\d+(\\.\\d+)?", "N");
        return line.substring(0, Math.min(120, line.length()));
    }

    private static String snippet(byte[] body) {
        String text = new String(body, StandardCharsets.UTF_8);
        return text.substring(0, Math.min(160, text.length()));
    }

    @Override
    public void close() {
        http.forEach(HttpWireClient::close);
        grpc.forEach(GrpcWireClient::close);
    }
}
