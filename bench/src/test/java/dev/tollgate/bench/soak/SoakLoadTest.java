package dev.tollgate.bench.soak;

import dev.tollgate.bench.soak.SoakTraffic.Kind;
import io.grpc.Status;
import org.junit.jupiter.api.Test;

import java.net.ConnectException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;

class SoakLoadTest {

    @Test
    void aCallCutOffByItsConnectionIsBrokenNotAWrongAnswer() {
        // the soak's one "wrong" answer at 4c95a8c: a call on the pod killed at 27:00, failed by grpc-java itself
        Throwable closed = new CompletionException(Status.UNKNOWN.withDescription("channel closed")
                .withCause(new ClosedChannelException()).asRuntimeException());

        assertThat(SoakLoad.ofGrpcFailure(Kind.API, closed)).isEqualTo(Outcome.BROKEN);
        assertThat(SoakLoad.ofGrpcFailure(Kind.API, Status.UNAVAILABLE.withDescription("io exception").asRuntimeException()))
                .isEqualTo(Outcome.BROKEN);
    }

    @Test
    void aRefusedConnectionSentNothingAndAStatusOfThePodsIsJudged() {
        assertThat(SoakLoad.ofGrpcFailure(Kind.LOGIN, Status.UNAVAILABLE.withCause(new ConnectException("Connection refused"))
                .asRuntimeException())).isEqualTo(Outcome.NO_POD);
        assertThat(SoakLoad.ofGrpcFailure(Kind.MALFORMED, Status.INVALID_ARGUMENT.asRuntimeException())).isEqualTo(Outcome.REFUSED);
        assertThat(SoakLoad.ofGrpcFailure(Kind.API, Status.INTERNAL.withDescription("boom").asRuntimeException())).isEqualTo(Outcome.WRONG);
        assertThat(SoakLoad.ofGrpcFailure(Kind.API, Status.DEADLINE_EXCEEDED.asRuntimeException())).isEqualTo(Outcome.TIMED_OUT);
    }
}
