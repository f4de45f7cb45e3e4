package dev.tollgate.check.api;

import dev.tollgate.check.access.ServiceTokens;
import dev.tollgate.limiter.Limiter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.reactor.netty.NettyReactiveWebServerFactory;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.http.client.ReactorResourceFactory;
import reactor.netty.DisposableServer;
import reactor.netty.http.HttpProtocol;
import reactor.netty.http.server.HttpServer;
import tools.jackson.databind.json.JsonMapper;

import java.util.List;

/**
 * The plain check's route ({@link CheckRoute}, the same code as the check port's) on an engine of the caller's, on a
 * loopback port of its own and on the check port's event loops, with the check port's server customizers (its idle and
 * request timeouts, its keep-alive and lingering-close handlers, its header limits) and its protocols: what a pod's
 * warm-up drives before the pod is ready, so that the code the traffic will run is compiled, with the pipeline the
 * traffic will meet, while no counter of the traffic can be touched.
 */
public final class LoopbackCheckServer {

    private LoopbackCheckServer() {
    }

    /**
     * @param engine  an engine of its own, never the pod's: every check sent here is spent on it
     * @param meters  a registry of its own, so the server's request series never reach the pod's scrape
     * @param token   the service token this server requires, so that the token's check is warmed too
     * @param webServer the check port's factory, for its customizers and protocols; null: none (a context without one)
     */
    public static DisposableServer start(Limiter engine, CheckJson check, JsonMapper json, MeterRegistry meters, ReactorResourceFactory loops,
                                         String token, NettyReactiveWebServerFactory webServer) {
        CheckRoute route = new CheckRoute(() -> engine, check, json, ServiceTokens.of(List.of(token)), meters, 64 * 1024);
        route.afterSingletonsInstantiated();
        HttpServer server = HttpServer.create()
                .host("127.0.0.1")
                .port(0)
                .runOn(loops.getLoopResources());
        if (webServer != null) {
            if (webServer.getHttp2() != null && webServer.getHttp2().isEnabled()) {
                server = server.protocol(HttpProtocol.HTTP11, HttpProtocol.H2C);
            }
            for (NettyServerCustomizer customizer : webServer.getServerCustomizers()) {
                server = customizer.apply(server);
            }
        }
        return server.route(route::apply).bindNow();
    }
}
