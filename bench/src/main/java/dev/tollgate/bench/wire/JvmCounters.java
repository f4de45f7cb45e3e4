package dev.tollgate.bench.wire;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A server's own CPU time and heap allocation, read over JMX: the operating system bean's
 * {@code ProcessCpuTime} (every thread of the process, as {@code /proc/<pid>/stat} counts it) and HotSpot's
 * {@code TotalThreadAllocatedBytes} (every byte any thread allocated since the JVM started, exact, where
 * Micrometer's {@code jvm_gc_memory_allocated_bytes_total} only moves at each collection). The same source
 * for check-service and the floor, so per-check figures compare like with like. Its JIT's total compilation time
 * tells when a warm-up has done its work ({@link JitSettle}).
 */
public final class JvmCounters implements AutoCloseable {

    /**
     * One reading; differences of two readings over the checks answered in between give per-check figures.
     *
     * @param storeCalls the server's own count of its calls to the counter store, from its metrics (check-service's
     *                   {@code tollgate_store_calls_seconds_count}); NaN for a server that makes none or was not read
     */
    public record Reading(long cpuNanos, long allocatedBytes, double storeCalls) {

        public Reading(long cpuNanos, long allocatedBytes) {
            this(cpuNanos, allocatedBytes, Double.NaN);
        }

        public Reading minus(Reading earlier) {
            return new Reading(cpuNanos - earlier.cpuNanos, allocatedBytes - earlier.allocatedBytes, storeCalls - earlier.storeCalls);
        }

        public Reading withStoreCalls(double calls) {
            return new Reading(cpuNanos, allocatedBytes, calls);
        }

        /** Store calls per check; NaN when they were not read or no check was answered. */
        public double storeCallsPer(long checks) {
            return checks <= 0 ? Double.NaN : storeCalls / checks;
        }

        /** CPU microseconds per check; NaN when no check was answered. */
        public double cpuMicrosPer(long checks) {
            return checks <= 0 ? Double.NaN : cpuNanos / 1e3 / checks;
        }

        public double bytesPer(long checks) {
            return checks <= 0 ? Double.NaN : (double) allocatedBytes / checks;
        }
    }

    private static final ObjectName OPERATING_SYSTEM = name("java.lang:type=OperatingSystem");
    private static final ObjectName THREADING = name("java.lang:type=Threading");
    private static final ObjectName COMPILATION = name("java.lang:type=Compilation");

    private final JMXConnector connector;
    private final MBeanServerConnection server;

    private JvmCounters(JMXConnector connector) throws IOException {
        this.connector = connector;
        this.server = connector.getMBeanServerConnection();
    }

    /** Connects to the JMX agent that {@link JavaProcess} opened on {@code port}. */
    public static JvmCounters connect(int port) {
        try {
            JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi");
            return new JvmCounters(JMXConnectorFactory.connect(url));
        } catch (IOException e) {
            throw new UncheckedIOException("could not reach the JMX agent on 127.0.0.1:" + port, e);
        }
    }

    public Reading read() {
        try {
            long cpu = ((Number) server.getAttribute(OPERATING_SYSTEM, "ProcessCpuTime")).longValue();
            long allocated = ((Number) server.getAttribute(THREADING, "TotalThreadAllocatedBytes")).longValue();
            return new Reading(cpu, allocated);
        } catch (IOException e) {
            throw new UncheckedIOException("the server's JMX agent stopped answering", e);
        } catch (Exception e) {
            throw new IllegalStateException("the server's JVM does not report its CPU time or allocation: " + e, e);
        }
    }

    /**
     * The JIT compilers' total time since the JVM started, milliseconds (the elapsed time of every compile task,
     * summed over the compiler threads): while it still grows fast, the server runs code the JIT has not finished.
     */
    public long compilationMillis() {
        try {
            return ((Number) server.getAttribute(COMPILATION, "TotalCompilationTime")).longValue();
        } catch (IOException e) {
            throw new UncheckedIOException("the server's JMX agent stopped answering", e);
        } catch (Exception e) {
            throw new IllegalStateException("the server's JVM does not report its JIT compilation time: " + e, e);
        }
    }

    private static ObjectName name(String name) {
        try {
            return new ObjectName(name);
        } catch (Exception e) {
            throw new IllegalArgumentException(name, e);
        }
    }

    @Override
    public void close() {
        try {
            connector.close();
        } catch (IOException e) {
            // the server is going away anyway
        }
    }
}
