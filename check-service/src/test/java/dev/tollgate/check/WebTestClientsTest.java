package dev.tollgate.check;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/** A request a server never answers fails with what the next CI stall needs to be told apart. */
class WebTestClientsTest {

    @Test
    void anAnswerThatNeverComesFailsWithTheConnectionsStateAndTheEventLoops() throws IOException {
        // accepts, and never reads: the request waits in the server socket's receive queue
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try (Socket accepted = silent.accept()) {
                    Thread.sleep(10_000);
                } catch (IOException | InterruptedException done) {
                    // the test is over
                }
            }, "silent-server");
            acceptor.setDaemon(true);
            acceptor.start();
            try {
                Throwable failure = catchThrowable(() -> WebTestClients.to(Integer.toString(silent.getLocalPort()), Duration.ofSeconds(5))
                        .get().uri("/actuator/health").exchange());

                assertThat(failure).isInstanceOf(WebTestClients.NoAnswer.class)
                        .hasMessageContaining("No answer to GET http://127.0.0.1:" + silent.getLocalPort() + "/actuator/health within 5 s")
                        .hasMessageContaining("GC ")
                        .hasMessageContaining("--- HTTP event loops: ")
                        // the client's own loop, waiting for its answer
                        .hasMessageContaining("\"reactor-http-");
                if (Files.isExecutable(Path.of("/usr/bin/ss")) || Files.isExecutable(Path.of("/usr/sbin/ss")) || Files.isExecutable(Path.of("/sbin/ss"))) {
                    assertThat(failure.getMessage()).contains("--- ss -tanip").contains("ESTAB");
                }
            } finally {
                acceptor.interrupt();
            }
        }
    }
}
