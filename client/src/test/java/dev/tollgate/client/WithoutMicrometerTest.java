package dev.tollgate.client;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.util.concurrent.Callable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Micrometer is an optional dependency: an application without it must be able to build the client, check, and ask
 * its health. The client's classes are loaded here by a class loader that cannot see {@code io.micrometer}, as in
 * such an application; everything else comes from the test's class path.
 */
class WithoutMicrometerTest {

    @Test
    void theClientChecksWithoutMicrometerOnTheClassPath() throws Exception {
        int closed;
        try (ServerSocket probe = new ServerSocket(0)) {
            closed = probe.getLocalPort();
        }
        ClassLoader withoutMicrometer = new WithoutMicrometer(getClass().getClassLoader());
        assertThatThrownBy(() -> withoutMicrometer.loadClass("io.micrometer.core.instrument.MeterRegistry"))
                .isInstanceOf(ClassNotFoundException.class);

        @SuppressWarnings("unchecked")
        Callable<String> run = (Callable<String>) withoutMicrometer.loadClass(UseTheClient.class.getName())
                .getConstructor(int.class).newInstance(closed);
        assertThat(run.call()).startsWith("UNREACHABLE ClientHealth[knownPods=1, downPods=1");
    }

    /** Runs inside the loader: builds a client on a refused port, checks once and reads its health and settings. */
    public static final class UseTheClient implements Callable<String> {

        private final int port;

        public UseTheClient(int port) {
            this.port = port;
        }

        @Override
        public String call() {
            try (TollgateClient client = TollgateClient.builder().endpoint(java.net.URI.create("http://127.0.0.1:" + port))
                    .deadline(java.time.Duration.ofSeconds(5)).build()) {
                CheckResult result = client.checkBlocking(new dev.tollgate.common.check.CheckRequest("d",
                        java.util.List.of(dev.tollgate.common.check.CheckEntry.of("r", "k", 1))));
                return result.fallback().reason() + " " + client.health() + " " + client.settings();
            }
        }
    }

    /** Defines the client's own classes itself (so that they resolve through it) and hides Micrometer. */
    private static final class WithoutMicrometer extends ClassLoader {

        WithoutMicrometer(ClassLoader parent) {
            super(parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.startsWith("io.micrometer.")) {
                throw new ClassNotFoundException(name + " (hidden: an application without Micrometer)");
            }
            if (!name.startsWith("dev.tollgate.client.")) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded == null) {
                    try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                        if (in == null) {
                            throw new ClassNotFoundException(name);
                        }
                        byte[] bytes = in.readAllBytes();
                        loaded = defineClass(name, bytes, 0, bytes.length);
                    } catch (IOException e) {
                        throw new ClassNotFoundException(name, e);
                    }
                }
                if (resolve) {
                    resolveClass(loaded);
                }
                return loaded;
            }
        }
    }
}
