package dev.tollgate.check.envoy;

import dev.tollgate.check.access.ServiceTokens;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

/**
 * {@code UNAUTHENTICATED} for a rate limit call without an accepted service token in its
 * {@code authorization} metadata (Envoy sends it with {@code grpc_service.initial_metadata}), when
 * tokens are configured. Only the rate limit service is guarded: health stays open for the probes.
 */
final class ServiceTokenInterceptor implements ServerInterceptor {

    static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

    private final ServiceTokens tokens;

    ServiceTokenInterceptor(ServiceTokens tokens) {
        this.tokens = tokens;
    }

    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
        if (tokens.accepts(headers.get(AUTHORIZATION))) {
            return next.startCall(call, headers);
        }
        call.close(Status.UNAUTHENTICATED.withDescription("unauthorized: the rate limit service needs the gateways' service token"
                + " (authorization: Bearer <token>)"), new Metadata());
        return new ServerCall.Listener<>() {
        };
    }
}
