package dev.tollgate.check.api;

import dev.tollgate.check.CheckServiceApplication;
import dev.tollgate.testsupport.http.RawHttp;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a client holds open it cannot hold for ever: a body that never arrives whole, or
 * stalls between reads, is answered 408 with problem details and its connection closed; an idle keep-alive
 * connection is closed. The pod runs with short limits so that each wait is bounded by the socket's own read
 * timeout, which is many times the limit: the assertions count answers and closes, not milliseconds.
 */
class ConnectionLimitsIT {

    private static final String BODY = "{\"domain\":\"public-api\",\"entries\":[{\"rule\":\"free-global\",\"key\":\"acct_limits\"}]}";
    /** Far longer than any limit the pod has, so that a read returning in time is the pod's doing. */
    private static final int SOCKET_TIMEOUT_MS = 15_000;

    private static ConfigurableApplicationContext pod;
    private static int port;

    @BeforeAll
    static void start() {
        pod = new SpringApplicationBuilder(CheckServiceApplication.class)
                .web(WebApplicationType.REACTIVE)
                .logStartupInfo(false)
                .run("--server.port=0", "--tollgate.grpc.enabled=false",
                        "--spring.data.redis.cluster.nodes=" + RedisCluster.shared().clusterNodes(),
                        "--tollgate.redis.command-timeout=2s",
                        "--tollgate.rules.file=src/test/resources/rules-test.yml", "--tollgate.rules.service-url=",
                        "--tollgate.pods.id=connection-limits-it", "--tollgate.region.name=connection-limits-it",
                        "--management.metrics.use-global-registry=false",
                        "--tollgate.http.idle-timeout=1s", "--tollgate.http.request-timeout=1500ms");
        port = Integer.parseInt(pod.getEnvironment().getProperty("local.server.port"));
    }

    @AfterAll
    static void stop() {
        if (pod != null) {
            pod.close();
        }
    }

    /**
     * A body that declares 1,000 bytes and sends 10, on the check's own route, on WebFlux's (a chunked body)
     * and to a media type WebFlux refuses before it reads (415: it waits for the body only so long, then closes).
     */
    @Test
    void aBodyThatNeverArrivesWholeIsAnswered408AndItsConnectionClosed() throws IOException {
        for (String head : List.of("Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"domain\":",
                "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\na\r\n{\"domain\":\r\n",
                "Content-Type: text/plain\r\nContent-Length: 1000\r\n\r\n{\"domain\":")) {
            String which = head.substring(0, head.indexOf("\r\n\r\n"));
            try (Socket socket = open()) {
                write(socket, "POST /v1/ratelimit:check HTTP/1.1\r\nHost: x\r\n" + head);
                RawHttp.Answer answer = RawHttp.read(socket.getInputStream());

                if (head.contains("text/plain")) {
                    assertThat(answer.status()).as(which).isEqualTo(415);
                } else {
                    assertThat(answer.status()).as(which).isEqualTo(408);
                    assertThat(answer.body()).as(which).contains("\"code\":\"request_timeout\"");
                }
                assertThat(answer.body()).as(which).contains("\"code\":");
                assertThat(endOfStream(socket.getInputStream())).as("closed after the answer: " + which).isTrue();
            }
        }
    }

    /** A byte at a time keeps the connection busy, yet the body as a whole must come within the request timeout. */
    @Test
    void aBodyTrickledSlowerThanTheRequestTimeoutIsAnswered408() throws Exception {
        try (Socket socket = open()) {
            write(socket, "POST /v1/ratelimit:check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
                    + BODY.length() + "\r\n\r\n");
            int sent = 0;
            try {
                // 250 ms a byte: the whole body would take ~20 s, the limit is 1.5 s
                for (; sent < BODY.length(); sent++) {
                    socket.getOutputStream().write(BODY.charAt(sent));
                    socket.getOutputStream().flush();
                    Thread.sleep(250);
                    if (socket.getInputStream().available() > 0) {
                        break;
                    }
                }
            } catch (IOException closedWhileWriting) {
                // the pod answered and closed while we were still trickling: the answer is still to be read
            }
            RawHttp.Answer answer = RawHttp.read(socket.getInputStream());
            assertThat(sent).as("answered before the body was whole").isLessThan(BODY.length());
            assertThat(answer.status()).isEqualTo(408);
            assertThat(answer.body()).contains("\"code\":\"request_timeout\"");
        }
    }

    /** A keep-alive connection is closed once idle, whether or not a request came on it first. */
    @Test
    void anIdleConnectionIsClosed() throws IOException {
        try (Socket silent = open(); Socket used = open()) {
            write(used, "POST /v1/ratelimit:check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
                    + BODY.length() + "\r\n\r\n" + BODY);
            assertThat(RawHttp.read(used.getInputStream()).status()).isEqualTo(200);

            assertThat(endOfStream(used.getInputStream())).as("closed after its answer, once idle").isTrue();
            assertThat(endOfStream(silent.getInputStream())).as("closed without ever sending a request").isTrue();
        }
    }

    /**
     * Pipelined requests whose last was answered at once left Reactor Netty 1.3.6 neither reading
     * the connection nor timing it as idle (see KeepAliveReads), so a client that went quiet held it for ever.
     */
    @Test
    void anIdleConnectionIsClosedAfterPipelinedRequestsToo() throws IOException {
        try (Socket socket = open()) {
            write(socket, "POST /v1/ratelimit:check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + Integer.toHexString(BODY.length()) + "\r\n" + BODY + "\r\n0\r\n\r\n"
                    + "OPTIONS /v1/ratelimit:check HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(RawHttp.read(socket.getInputStream()).status()).isEqualTo(200);
            assertThat(RawHttp.read(socket.getInputStream()).status()).isEqualTo(200);

            assertThat(endOfStream(socket.getInputStream())).as("closed once idle").isTrue();
        }
    }

    /** Many clients at once that all stall: every one is answered, and the pod still checks afterwards. */
    @Test
    void manyStalledConnectionsAreAllAnsweredAndThePodStillServes() throws IOException {
        List<Socket> stalled = new ArrayList<>();
        try {
            for (int i = 0; i < 200; i++) {
                Socket socket = open();
                stalled.add(socket);
                write(socket, "POST /v1/ratelimit:check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{");
            }
            int answered = 0;
            for (Socket socket : stalled) {
                if (RawHttp.read(socket.getInputStream()).status() == 408) {
                    answered++;
                }
            }
            assertThat(answered).isEqualTo(stalled.size());
        } finally {
            for (Socket socket : stalled) {
                socket.close();
            }
        }
        RawHttp.Answer check = RawHttp.exchange(port, "POST /v1/ratelimit:check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + BODY.length() + "\r\nConnection: close\r\n\r\n" + BODY);
        assertThat(check.status()).isEqualTo(200);
    }

    private static Socket open() throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(SOCKET_TIMEOUT_MS);
        return socket;
    }

    private static void write(Socket socket, String text) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** True when the pod closed the connection within the socket's timeout; a reset counts as closed too. */
    private static boolean endOfStream(InputStream in) throws IOException {
        try {
            return in.read() == -1;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }
}
