package dev.tollgate.check.api;

import dev.tollgate.check.access.ServiceTokens;
import dev.tollgate.limiter.Limiter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.http.client.ReactorResourceFactory;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import tools.jackson.databind.json.JsonMapper;

import java.util.List;

/**
 * The plain check's route ({@link CheckRoute}, the same code as the check port's) on an engine of the caller's, on a
 * loopback port of its own and on the check port's event loops: what a pod's warm-up drives before the pod is ready,
 * so that the code the traffic will run is compiled while no counter of the traffic can be touched.
 */
public final class LoopbackCheckServer {

    private LoopbackCheckServer() {
    }

    /**
     * @param engine an engine of its own, never the pod's: every check sent here is spent on it
     * @param meters a registry of its own, so the server's request series never reach the pod's scrape
     */
    public static DisposableServer start(Limiter engine, CheckJson check, JsonMapper json, MeterRegistry meters, ReactorResourceFactory loops) {
        CheckRoute route = new CheckRoute(() -> engine, check, json, ServiceTokens.of(List.of()), meters, 64 * 1024);
        route.afterSingletonsInstantiated();
        return HttpServer.create()
                .host("127.0.0.1")
                .port(0)
                .runOn(loops.getLoopResources())
                .route(route::apply)
                .bindNow();
    }
}
