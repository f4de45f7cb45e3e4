package dev.tollgate.bench.wire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * An Envoy RLS v3 server the bench did not start (envoyproxy/ratelimit, given as {@code --peer-rls=HOST:PORT}): scenario 8
 * sends it the same {@code ShouldRateLimit} calls as check-service. Its CPU is read from {@code /proc/<pid>/stat} when its
 * pid is given ({@code --peer-rls-pid}); the bench never builds, downloads or starts it.
 */
public record PeerRls(String host, int port, OptionalLong pid) {

    public PeerRls {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("--peer-rls: HOST:PORT, the host was empty");
        }
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("--peer-rls: HOST:PORT with a port from 1 to 65535, was " + port);
        }
        if (pid.isPresent() && pid.getAsLong() < 1) {
            throw new IllegalArgumentException("--peer-rls-pid must be a process id, was " + pid.getAsLong());
        }
    }

    /** From {@code --peer-rls=HOST:PORT} and, when given, {@code --peer-rls-pid=N}. */
    public static PeerRls parse(String hostPort, String pid) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0 || colon == hostPort.length() - 1) {
            throw new IllegalArgumentException("--peer-rls: HOST:PORT, was " + hostPort);
        }
        int port;
        try {
            port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--peer-rls: HOST:PORT with a numeric port, was " + hostPort, e);
        }
        return new PeerRls(hostPort.substring(0, colon), port, pid == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(pid)));
    }

    public String address() {
        return host + ":" + port;
    }

    /** The peer process's CPU time so far (user + system, every thread), nanoseconds; empty without a pid. */
    public OptionalLong cpuNanos() {
        if (pid.isEmpty()) {
            return OptionalLong.empty();
        }
        Path stat = Path.of("/proc", Long.toString(pid.getAsLong()), "stat");
        try {
            return OptionalLong.of(ticksOf(Files.readString(stat, StandardCharsets.US_ASCII)) * (1_000_000_000L / ClockTicks.PER_SECOND));
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the peer's CPU time from " + stat + " (is --peer-rls-pid its pid, on this machine?)", e);
        }
    }

    /**
     * utime + stime of a {@code /proc/<pid>/stat} line, in clock ticks: fields 14 and 15, counted after the command's closing
     * parenthesis, since the command itself may hold spaces and parentheses.
     */
    static long ticksOf(String stat) {
        String[] after = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        // after[0] is field 3 (state): utime is field 14, stime field 15
        return Long.parseLong(after[11]) + Long.parseLong(after[12]);
    }

    /** USER_HZ: 100 on every Linux the bench runs on (getconf CLK_TCK); /proc counts CPU time in it. */
    private static final class ClockTicks {
        static final long PER_SECOND = 100;
    }
}
