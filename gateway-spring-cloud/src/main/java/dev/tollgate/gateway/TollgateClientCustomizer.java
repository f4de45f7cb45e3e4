package dev.tollgate.gateway;

import dev.tollgate.client.TollgateClient;

/**
 * Changes the auto-configured {@link TollgateClient} before it is built: beans of this type are applied in order. The
 * auto-configuration's own gives the client the application's {@code MeterRegistry}; an application may add one that
 * sets, say, {@link TollgateClient.Builder#traceparent} from its tracer, or apply them to a client bean of its own.
 */
@FunctionalInterface
public interface TollgateClientCustomizer {

    void customize(TollgateClient.Builder builder);
}
