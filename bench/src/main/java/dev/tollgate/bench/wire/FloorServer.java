package dev.tollgate.bench.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.HttpProtocol;
import reactor.netty.http.server.HttpServer;

import java.nio.file.Path;
import java.util.Map;

/**
 * The floor: the least any Java HTTP service on this machine can do per check. A bare reactor-netty server
 * (the transport under check-service's WebFlux) that reads each request's body whole and sends back
 * check-service's own answer, canned, over HTTP/1.1 keep-alive or h2c. It runs in a JVM of its own with the
 * pod's JVM flags: {@code FloorServer <port> <canned answer file>}; it stops when its process is ended.
 */
public final class FloorServer {

    private FloorServer() {
    }

    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: FloorServer <port> <canned answer file>");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        CannedAnswer answer = CannedAnswer.readFrom(Path.of(args[1]));
        HttpHeaders headers = new DefaultHttpHeaders();
        for (Map.Entry<String, String> header : answer.headers()) {
            headers.add(header.getKey(), header.getValue());
        }
        headers.set("content-length", answer.body().length);
        // one read-only buffer for every answer: the floor allocates what the transport must, nothing of its own
        ByteBuf body = Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(answer.body()).asReadOnly());
        DisposableServer server = HttpServer.create()
                .host("127.0.0.1")
                .port(port)
                .protocol(HttpProtocol.HTTP11, HttpProtocol.H2C)
                .handle((request, response) -> request.receive().then()
                        .then(Mono.defer(() -> response.headers(headers).send(Mono.just(body.duplicate())).then())))
                .bindNow();
        System.out.println("floor listening on 127.0.0.1:" + server.port());
        server.onDispose().block();
    }
}
