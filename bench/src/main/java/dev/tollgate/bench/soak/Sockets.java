package dev.tollgate.bench.soak;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A process's established TCP connections, from {@code /proc}: the socket inodes its file descriptors hold
 * ({@code /proc/<pid>/fd/* -> socket:[inode]}) matched against the kernel's socket tables ({@code /proc/net/tcp} and
 * {@code tcp6}), which list every socket of the network namespace with its state and inode. Counted by peer: inbound
 * to one of the process's own ports, to a Redis node, or anything else.
 */
final class Sockets {

    /** {@code st} 01 in the kernel's table. */
    private static final String ESTABLISHED = "01";

    /** One established connection's ends. */
    record Connection(int localPort, int remotePort, long inode) {
    }

    /**
     * Established connections by peer.
     *
     * @param redisByPort the connections to each Redis node, by its port
     */
    record Count(int inbound, int redis, int other, java.util.SortedMap<Integer, Integer> redisByPort) {

        int total() {
            return inbound + redis + other;
        }
    }

    private Sockets() {
    }

    /** Established connections of {@code pid}; null when /proc cannot tell (not Linux, the process gone). */
    static Count of(long pid, Set<Integer> ownPorts, Set<Integer> redisPorts) {
        Set<Long> inodes = socketInodes(pid);
        if (inodes == null) {
            return null;
        }
        int inbound = 0;
        int redis = 0;
        int other = 0;
        java.util.SortedMap<Integer, Integer> byPort = new java.util.TreeMap<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            String text;
            try {
                text = Files.readString(Path.of(table));
            } catch (IOException e) {
                continue;
            }
            for (Connection c : established(text)) {
                if (!inodes.contains(c.inode())) {
                    continue;
                }
                if (ownPorts.contains(c.localPort())) {
                    inbound++;
                } else if (redisPorts.contains(c.remotePort())) {
                    redis++;
                    byPort.merge(c.remotePort(), 1, Integer::sum);
                } else {
                    other++;
                }
            }
        }
        return new Count(inbound, redis, other, java.util.Collections.unmodifiableSortedMap(byPort));
    }

    /** The established connections of one socket table's text (local and remote port, inode). */
    static List<Connection> established(String table) {
        return table.lines().skip(1).map(String::trim).filter(line -> !line.isEmpty()).map(line -> line.split("\\s+"))
                // sl local rem st tx:rx tr:when retrnsmt uid timeout inode
                .filter(fields -> fields.length > 9 && ESTABLISHED.equals(fields[3]))
                .map(fields -> new Connection(port(fields[1]), port(fields[2]), Long.parseLong(fields[9])))
                .toList();
    }

    private static int port(String address) {
        return Integer.parseInt(address.substring(address.indexOf(':') + 1), 16);
    }

    private static Set<Long> socketInodes(long pid) {
        Set<Long> inodes = new HashSet<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(Long.parseLong(target.substring(8, target.length() - 1)));
                    }
                } catch (IOException e) {
                    // closed between the listing and the read
                }
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return inodes;
    }
}
