package dev.tollgate.testsupport.redis;

import io.lettuce.core.KillArgs;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One {@code redis-server} process of a {@link RedisCluster}. The fault-injection methods ({@link #kill()},
 * {@link #freeze()}, {@link #flushScripts()}, {@link #killClients()}) are refused on the shared cluster, which
 * other tests are using at the same time. A killed node can be started again, on the same port and with the same
 * cluster identity, by {@link RedisCluster#restart(Node)}.
 */
public final class Node {

    private final int port;
    private final Path directory;
    /** Replaced when the node is restarted after a kill; the port, directory and node ID stay. */
    private volatile Process process;
    private final AdminClient admin;
    private final boolean shared;
    private volatile String nodeId;
    private volatile boolean frozen;

    Node(int port, Path directory, Process process, AdminClient admin, boolean shared) {
        this.port = port;
        this.directory = directory;
        this.process = process;
        this.admin = admin;
        this.shared = shared;
    }

    public String host() {
        return AdminClient.HOST;
    }

    public int port() {
        return port;
    }

    /** {@code host:port}, the form Spring's {@code spring.data.redis.cluster.nodes} takes. */
    public String hostAndPort() {
        return host() + ":" + port;
    }

    /**
     * {@code redis://[:password@]127.0.0.1:port}, the form Lettuce's {@code RedisURI.create} takes, with the
     * password the cluster requires now (see {@link RedisCluster#changePassword(String)}).
     */
    public String uri() {
        return uri(hostAndPort(), admin.password());
    }

    static String uri(String hostAndPort, String password) {
        if (password == null) {
            return "redis://" + hostAndPort;
        }
        // Percent-encoding, not form encoding: Lettuce's URI parser reads "+" as a plus.
        String encoded = URLEncoder.encode(password, StandardCharsets.UTF_8).replace("+", "%20");
        return "redis://:" + encoded + "@" + hostAndPort;
    }

    /** The cluster node ID, stable for the life of the process. */
    public String nodeId() {
        return nodeId;
    }

    /** Where the process writes its log (stdout and stderr). */
    public Path logFile() {
        return directory.resolve("redis.log");
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public boolean isFrozen() {
        return frozen;
    }

    /** Alive and not frozen: it can answer. */
    public boolean isResponsive() {
        return isAlive() && !frozen;
    }

    /**
     * Whether this node says it is a primary right now ({@code ROLE}). Asks the node itself, so it must be
     * responsive; after a failover a promoted replica answers true.
     */
    public boolean isPrimary() {
        List<Object> role = admin.call(port, RedisCommands::role);
        return "master".equals(String.valueOf(role.get(0)));
    }

    /** SIGKILL: the process dies without a chance to tell the cluster, as on a crashed host. */
    public void kill() {
        refuseOnShared("kill");
        if (frozen) {
            frozen = false;
        }
        process.destroyForcibly();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                throw new IllegalStateException("redis-server " + hostAndPort() + " did not die after SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing " + hostAndPort(), e);
        }
    }

    /**
     * SIGSTOP: the process stays, its sockets stay open, but it answers nothing, like a node in a long GC
     * pause or behind a partition. Peers mark it failed after the node timeout.
     */
    public void freeze() {
        refuseOnShared("freeze");
        signal("STOP");
        frozen = true;
    }

    /** SIGCONT after {@link #freeze()}. */
    public void unfreeze() {
        refuseOnShared("unfreeze");
        signal("CONT");
        frozen = false;
    }

    /**
     * {@code SCRIPT FLUSH}: the node forgets every cached script, as after a restart or a failover to a replica
     * that never saw them; the next {@code EVALSHA} of each answers NOSCRIPT.
     */
    public void flushScripts() {
        refuseOnShared("flush the scripts of");
        admin.call(port, RedisCommands::scriptFlush);
    }

    /**
     * {@code CLIENT KILL TYPE normal}: drops every ordinary client connection (not replication links, and not
     * the connection that asks), as a proxy restart or a network blip between clients and the node would.
     *
     * @return how many connections the node closed
     */
    public long killClients() {
        refuseOnShared("kill the clients of");
        return admin.call(port, commands -> commands.clientKill(KillArgs.Builder.typeNormal()));
    }

    void assignNodeId(String id) {
        this.nodeId = id;
    }

    Process process() {
        return process;
    }

    /** After {@link RedisCluster#restart(Node)}: the new process on the same port and directory. */
    void restarted(Process newProcess) {
        this.process = newProcess;
        this.frozen = false;
    }

    Path directory() {
        return directory;
    }

    /** Ends the process however it is (a stopped process dies on SIGKILL too). */
    void destroy() {
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void signal(String name) {
        if (!isAlive()) {
            throw new IllegalStateException("redis-server " + hostAndPort() + " is not running");
        }
        String kill = Files.isExecutable(Path.of("/bin/kill")) ? "/bin/kill" : "kill";
        try {
            Process signaller = new ProcessBuilder(kill, "-" + name, Long.toString(process.pid()))
                    .redirectErrorStream(true)
                    .start();
            String output = new String(signaller.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (signaller.waitFor() != 0) {
                throw new IllegalStateException(kill + " -" + name + " " + process.pid() + " failed: " + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException("could not send SIG" + name + " to " + hostAndPort(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending SIG" + name, e);
        }
    }

    private void refuseOnShared(String action) {
        if (shared) {
            throw new UnsupportedOperationException("cannot " + action + " a node of the shared cluster: other tests use it; "
                    + "start a private one with RedisCluster.builder()...start()");
        }
    }

    @Override
    public String toString() {
        return "redis node " + hostAndPort() + (nodeId == null ? "" : " (" + nodeId.substring(0, 8) + ")");
    }
}
