package dev.tollgate.testsupport.redis;

import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Redis Cluster of {@code redis-server} processes on free loopback ports, built with CLUSTER MEET,
 * ADDSLOTS and REPLICATE (no redis-cli needed), and handed out only once every node says
 * {@code cluster_state:ok}, all 16384 slots are assigned and all nodes agree on who owns them.
 *
 * <p>{@link #shared()} is one 3-primary cluster per JVM for tests that only read and write (isolate them
 * with {@link #flushAll()}); a test that kills or freezes nodes starts its own with {@link #builder()} and
 * closes it. Processes run even where Docker does not, so no container path exists here.
 */
public final class RedisCluster implements AutoCloseable {

    public static final int SLOTS = 16384;
    static final int PRIMARIES = 3;

    private static final Logger log = LoggerFactory.getLogger(RedisCluster.class);

    /*
     * Client ports, and the bus ports (client + 10000, fixed by Redis), stay below the Linux ephemeral range
     * (32768+), so that neither collides with outgoing connections; 6379 is outside, and a port anything
     * already listens on is skipped by the bind check.
     */
    private static final int FIRST_PORT = 15000;
    private static final int LAST_PORT = 22000;
    private static final int BUS_PORT_OFFSET = 10000;
    private static final Set<Integer> PORTS_HANDED_OUT = ConcurrentHashMap.newKeySet();
    private static final Duration NODE_START_TIMEOUT = Duration.ofSeconds(10);
    private static final int LAUNCH_ATTEMPTS = 5;

    private static RedisCluster sharedCluster;
    private static RuntimeException sharedFailure;

    private final boolean shared;
    private final boolean withReplicas;
    private final int nodeTimeoutMs;
    /** Client ports the caller chose (see {@link Builder#ports}), used in start order; empty: free ones. */
    private final List<Integer> givenPorts;
    private final Path root;
    private final AdminClient admin;
    private final List<Node> nodes = new CopyOnWriteArrayList<>();
    /** Every process ever started, members or failed attempts, so that destroy misses none. */
    private final List<Node> spawned = new CopyOnWriteArrayList<>();
    /** Replica to primary, as the cluster was built; failovers change the live roles, not this. */
    private final Map<Node, Node> builtReplicaOf = new LinkedHashMap<>();
    private final AtomicBoolean destroyed = new AtomicBoolean();
    /** Starting a node and stopping the cluster exclude each other; see {@link #spawn}. */
    private final Object lifecycle = new Object();
    private final Thread shutdownHook;

    private RedisCluster(Builder builder, boolean shared) {
        this.shared = shared;
        this.withReplicas = builder.replicas;
        this.nodeTimeoutMs = builder.nodeTimeoutMs;
        this.givenPorts = builder.ports;
        if (!givenPorts.isEmpty() && givenPorts.size() != (withReplicas ? 2 * PRIMARIES : PRIMARIES)) {
            throw new IllegalArgumentException("ports: give one per node, " + (withReplicas ? 2 * PRIMARIES : PRIMARIES) + ", not " + givenPorts);
        }
        Leftovers.reapOnce();
        try {
            this.root = Files.createTempDirectory(Leftovers.PREFIX);
            Leftovers.markOwner(root);
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a temp dir for the cluster", e);
        }
        this.admin = new AdminClient(builder.password);
        // Registered before the first process starts: a JVM that exits mid-start must not leave servers behind.
        this.shutdownHook = new Thread(this::destroy, "tollgate-redis-cluster-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);

        long started = System.nanoTime();
        try {
            Path binary = RedisBinary.resolve();
            launchAll(binary, withReplicas ? 2 * PRIMARIES : PRIMARIES);
            form(builder.startupTimeout);
        } catch (RuntimeException e) {
            String logs = describeLogs();
            destroy();
            removeShutdownHook();
            throw new IllegalStateException("Redis Cluster failed to start: " + e.getMessage() + logs, e);
        }
        log.info("Redis Cluster ready in {} ms: {} primaries{}, node timeout {} ms, ports {}",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), PRIMARIES,
                withReplicas ? " with one replica each" : "", nodeTimeoutMs,
                nodes.stream().map(Node::port).toList());
    }

    /**
     * The JVM's one 3-primary cluster without replicas, started on first use and stopped when the JVM exits.
     * It cannot be closed, and its nodes cannot be killed or frozen.
     */
    public static synchronized RedisCluster shared() {
        if (sharedFailure != null) {
            throw new IllegalStateException("the shared Redis Cluster failed to start earlier in this JVM", sharedFailure);
        }
        if (sharedCluster == null) {
            try {
                sharedCluster = new RedisCluster(new Builder(), true);
            } catch (RuntimeException e) {
                sharedFailure = e;
                throw e;
            }
        }
        return sharedCluster;
    }

    /**
     * Client ports that are free now, with their bus ports (+10000), and that no other cluster of this JVM
     * will take: for a test that points a client at a cluster before starting it ({@link Builder#ports}).
     */
    public static List<Integer> reservePorts(int count) {
        return IntStream.range(0, count).mapToObj(i -> reservePort()).toList();
    }

    /** A private cluster, owned and closed by the caller. */
    public static Builder builder() {
        return new Builder();
    }

    /** One URI per node, replicas included, each with the password when one is set. */
    public List<String> seedUris() {
        return nodes.stream().map(Node::uri).toList();
    }

    /** Every node as {@code host:port}, comma-separated: what Spring's {@code spring.data.redis.cluster.nodes} takes. */
    public String clusterNodes() {
        return String.join(",", nodes().stream().map(Node::hostAndPort).toList());
    }

    /** Every node as started, in start order: the primaries as built, then their replicas. */
    public List<Node> nodes() {
        return List.copyOf(nodes);
    }

    /** The nodes that own slots now, as a responsive node sees it, in slot order. */
    public List<Node> primaries() {
        ClusterView view = liveView();
        return view.entries().stream()
                .filter(entry -> entry.isPrimary() && !entry.slots().isEmpty() && !entry.isFailing())
                .sorted(Comparator.comparingInt(entry -> entry.slots().get(0).first()))
                .map(entry -> byNodeId(entry.id()))
                .flatMap(Optional::stream)
                .toList();
    }

    /** The node that owns {@code redisKey}'s slot now (asked live, since a failover moves slots). */
    public Node primaryForKey(String redisKey) {
        int slot = SlotHash.getSlot(redisKey);
        ClusterView.Entry owner = liveView().ownerOf(slot)
                .orElseThrow(() -> new IllegalStateException("slot " + slot + " of key " + redisKey + " has no owner"));
        return byNodeId(owner.id())
                .orElseThrow(() -> new IllegalStateException("slot " + slot + " is owned by unknown node " + owner.id()));
    }

    /** FLUSHALL on every primary; replicas follow through replication. For isolation between tests. */
    public void flushAll() {
        for (Node primary : primaries()) {
            admin.call(primary.port(), RedisCommands::flushall);
        }
    }

    /** The password the nodes require now: the builder's, or the last {@link #changePassword(String)}. */
    public Optional<String> password() {
        return Optional.ofNullable(admin.password());
    }

    /**
     * Makes every live node require {@code newPassword} from now on ({@code CONFIG SET requirepass}, and
     * {@code masterauth} so that replicas still sync). Connections already authenticated stay open; new ones
     * (a client's reconnect) must show the new password. The cluster's own calls, {@link Node#uri()} and
     * {@link #restart(Node)} use it from now on.
     */
    public void changePassword(String newPassword) {
        Objects.requireNonNull(newPassword, "newPassword");
        requireOwned("change the password of");
        for (Node node : nodes) {
            if (node.isResponsive()) {
                admin.call(node.port(), commands -> {
                    commands.configSet("masterauth", newPassword);
                    return commands.configSet("requirepass", newPassword);
                });
            }
        }
        admin.password(newPassword);
    }

    /**
     * Starts a killed node again: the same port, directory and {@code nodes.conf}, so it rejoins with its old
     * node ID and, once it hears that its replica took over its slots, follows it as a replica. Returns when
     * the process answers; {@link #awaitHealthy(Duration)} then waits for the cluster to agree on it.
     */
    public void restart(Node node) {
        requireOwned("restart a node of");
        if (!nodes.contains(node)) {
            throw new IllegalArgumentException(node + " is not a node of " + this);
        }
        if (node.isAlive()) {
            throw new IllegalStateException(node + " is still running; kill it first");
        }
        Path binary = RedisBinary.resolve();
        synchronized (lifecycle) {
            if (destroyed.get()) {
                throw new IllegalStateException("the cluster is stopped");
            }
            // already in spawned from its first start: destroy() ends whatever process it has now
            node.restarted(startProcess(binary, node.port(), node.directory()));
        }
        awaitAnswering(node);
    }

    /**
     * Starts one more primary, with no slots, and joins it to the cluster (what {@code redis-cli --cluster add-node}
     * does): for a test that moves slots onto a primary of their own. Returns once every node knows it and the
     * cluster is healthy; it owns nothing until slots are moved to it.
     */
    public Node addEmptyPrimary() {
        requireOwned("add a node to");
        Path binary = RedisBinary.resolve();
        Node added = awaitOrRespawn(spawn(binary, reservePort()), binary);
        added.assignNodeId(admin.call(added.port(), RedisCommands::clusterMyId));
        // every member met directly, as when forming: gossip alone can take node-timeout/2 to spread it
        for (Node member : nodes) {
            if (member.isResponsive()) {
                admin.call(added.port(), commands -> commands.clusterMeet(AdminClient.HOST, member.port()));
            }
        }
        nodes.add(added);
        Duration timeout = Duration.ofSeconds(20);
        await("every node to know " + added, timeout, false, this::membershipProblem);
        awaitHealthy(timeout);
        return added;
    }

    public Duration nodeTimeout() {
        return Duration.ofMillis(nodeTimeoutMs);
    }

    /**
     * Waits until every responsive node says {@code cluster_state:ok} with all slots assigned, all of them
     * agree on the owner of every slot, and every owner is responsive and not flagged as failing.
     */
    public void awaitHealthy(Duration timeout) {
        await("the cluster to be healthy", timeout, false, this::healthProblem);
    }

    /**
     * Waits until a replica of {@code deadPrimary} (killed or frozen) has been promoted and the cluster is
     * healthy again, and returns that replica.
     */
    public Node awaitPromotedReplicaFor(Node deadPrimary, Duration timeout) {
        Set<Node> candidates = new LinkedHashSet<>();
        builtReplicaOf.forEach((replica, primary) -> {
            if (primary.equals(deadPrimary)) {
                candidates.add(replica);
            }
        });
        liveView().entries().stream()
                .filter(entry -> deadPrimary.nodeId().equals(entry.primaryId()))
                .map(entry -> byNodeId(entry.id()))
                .flatMap(Optional::stream)
                .forEach(candidates::add);
        if (candidates.isEmpty()) {
            throw new IllegalArgumentException(deadPrimary + " has no replica that could take over");
        }
        AtomicReference<Node> promoted = new AtomicReference<>();
        await("a replica of " + deadPrimary + " to take over its slots", timeout, false, () -> {
            String problem = healthProblem();
            if (problem != null) {
                return problem;
            }
            ClusterView view = liveView();
            for (Node candidate : candidates) {
                boolean owns = candidate.isResponsive() && view.byId(candidate.nodeId())
                        .map(entry -> entry.isPrimary() && !entry.slots().isEmpty())
                        .orElse(false);
                if (owns) {
                    promoted.set(candidate);
                    return null;
                }
            }
            return "none of " + candidates + " owns slots yet";
        });
        return promoted.get();
    }

    private void requireOwned(String action) {
        if (shared) {
            throw new UnsupportedOperationException("cannot " + action + " the shared cluster: other tests use it; "
                    + "start a private one with RedisCluster.builder()...start()");
        }
    }

    /** Stops every process and removes the temp dirs. Refused on the shared cluster. */
    @Override
    public void close() {
        if (shared) {
            throw new UnsupportedOperationException("the shared Redis Cluster lives as long as the JVM and cannot be closed; "
                    + "start a private one with RedisCluster.builder()...start()");
        }
        destroy();
        removeShutdownHook();
    }

    @Override
    public String toString() {
        return (shared ? "shared " : "") + "Redis Cluster " + nodes;
    }

    // ---- starting

    /*
     * All processes first, then the waiting: each primary's 2-second writable delay (see form) starts
     * with its process, so starting them together keeps the cluster's start at about 2 s.
     */
    private void launchAll(Path binary, int count) {
        List<Node> started = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            started.add(spawn(binary, givenPorts.isEmpty() ? reservePort() : givenPorts.get(i)));
        }
        for (Node node : started) {
            nodes.add(awaitOrRespawn(node, binary));
        }
    }

    private Node awaitOrRespawn(Node node, Path binary) {
        Node candidate = node;
        for (int attempt = 1; ; attempt++) {
            try {
                awaitAnswering(candidate);
                return candidate;
            } catch (RuntimeException e) {
                // Most likely another process took the port (or its bus port) between our check and the bind.
                candidate.destroy();
                if (attempt == LAUNCH_ATTEMPTS) {
                    throw e;
                }
                log.debug("redis-server on port {} did not come up (attempt {}): {}", candidate.port(), attempt, e.getMessage());
                // a given port is the caller's to keep: it is tried again, not swapped for another
                candidate = spawn(binary, givenPorts.isEmpty() ? reservePort() : candidate.port());
            }
        }
    }

    /**
     * Under {@link #lifecycle}, as is {@link #destroy()}: a shutdown hook that stops the cluster while it is still
     * starting (a Ctrl-C) either waits for this node and stops it, or this sees the cluster stopped and starts none.
     */
    private Node spawn(Path binary, int port) {
        synchronized (lifecycle) {
            if (destroyed.get()) {
                throw new IllegalStateException("the cluster was stopped while it started");
            }
            Path directory = root.resolve("node-" + port);
            try {
                Files.createDirectories(directory);
            } catch (IOException e) {
                throw new UncheckedIOException("could not create " + directory, e);
            }
            Node node = new Node(port, directory, startProcess(binary, port, directory), admin, shared);
            spawned.add(node);
            return node;
        }
    }

    /** The process only, appending to the node's log (a restarted node's log keeps its first life). */
    private Process startProcess(Path binary, int port, Path directory) {
        try {
            Process process = new ProcessBuilder(command(binary, port, directory))
                    .directory(directory.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("redis.log").toFile()))
                    .start();
            Leftovers.markProcess(directory, process);
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + binary, e);
        }
    }

    private List<String> command(Path binary, int port, Path directory) {
        String password = admin.password();
        List<String> command = new ArrayList<>(List.of(
                binary.toString(),
                "--port", Integer.toString(port),
                "--bind", AdminClient.HOST,
                "--protected-mode", "no",
                "--daemonize", "no",
                "--dir", directory.toAbsolutePath().toString(),
                "--cluster-enabled", "yes",
                "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", Integer.toString(nodeTimeoutMs),
                "--cluster-require-full-coverage", "no",
                "--cluster-allow-reads-when-down", "no",
                // Fail over whatever the replica's last contact: the tests decide when a primary is gone.
                "--cluster-replica-validity-factor", "0",
                "--save", "",
                "--appendonly", "no",
                // Redis 7 waits 5 s by default before a diskless full sync; replicas should be ready at once.
                "--repl-diskless-sync", "yes",
                "--repl-diskless-sync-delay", "0"));
        if (password != null) {
            command.addAll(List.of("--requirepass", password, "--masterauth", password));
        }
        if (RedisBinary.majorVersion(binary) >= 7) {
            // DEBUG SLEEP stands in for a shard that stalls; Redis 7 refuses DEBUG unless this allows it (6.2 has no such switch)
            command.addAll(List.of("--enable-debug-command", "local"));
        }
        return command;
    }

    private void awaitAnswering(Node node) {
        long deadline = System.nanoTime() + NODE_START_TIMEOUT.toNanos();
        while (true) {
            if (!node.isAlive()) {
                throw new IllegalStateException(node + " exited with " + node.process().exitValue() + tail(node.logFile(), 10));
            }
            try {
                admin.call(node.port(), RedisCommands::ping);
                return;
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(node + " did not answer PING within " + NODE_START_TIMEOUT.toSeconds() + " s", e);
                }
            }
            sleep(10);
        }
    }

    /*
     * A primary reports cluster_state:ok no sooner than 2 s after it started (CLUSTER_WRITABLE_DELAY in
     * cluster.c, there so that a restarted primary learns the new configuration before taking writes); the
     * rest of forming takes a few hundred ms and overlaps with it.
     */
    private void form(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Node> primaries = nodes.subList(0, PRIMARIES);
        List<Node> replicas = nodes.subList(PRIMARIES, nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            Node node = nodes.get(i);
            node.assignNodeId(admin.call(node.port(), RedisCommands::clusterMyId));
            // Distinct epochs up front, as redis-cli does, so the cluster needs no epoch-collision round.
            long epoch = i + 1;
            admin.call(node.port(), commands -> commands.clusterSetConfigEpoch(epoch));
        }
        for (int i = 0; i < PRIMARIES; i++) {
            // ADDSLOTS, not ADDSLOTSRANGE: the embedded 6.2 binary lacks the latter.
            int[] slots = IntStream.rangeClosed(firstSlot(i), lastSlot(i)).toArray();
            admin.call(primaries.get(i).port(), commands -> commands.clusterAddSlots(slots));
        }
        // Every pair meets directly rather than through gossip: a node learns a peer's slots only from that
        // peer's own messages, which otherwise may not come for node-timeout/2.
        for (Node node : nodes) {
            for (Node other : nodes) {
                if (node != other) {
                    admin.call(node.port(), commands -> commands.clusterMeet(AdminClient.HOST, other.port()));
                }
            }
        }
        await("every node to know every other node", remaining(deadline), true, this::membershipProblem);
        for (int i = 0; i < replicas.size(); i++) {
            Node replica = replicas.get(i);
            Node primary = primaries.get(i);
            builtReplicaOf.put(replica, primary);
            admin.call(replica.port(), commands -> commands.clusterReplicate(primary.nodeId()));
        }
        await("the replicas to be in sync", remaining(deadline), true, this::replicationProblem);
        await("the cluster to be healthy", remaining(deadline), true, this::healthProblem);
    }

    private static int firstSlot(int primary) {
        return primary * SLOTS / PRIMARIES;
    }

    private static int lastSlot(int primary) {
        return (primary + 1) * SLOTS / PRIMARIES - 1;
    }

    private String membershipProblem() {
        for (Node node : nodes) {
            ClusterView view = admin.view(node.port());
            if (view.entries().size() != nodes.size()) {
                return node + " knows " + view.entries().size() + " of " + nodes.size() + " nodes";
            }
            Optional<ClusterView.Entry> joining = view.entries().stream().filter(ClusterView.Entry::isJoining).findFirst();
            if (joining.isPresent()) {
                return node + " is still in a handshake with " + joining.get().id();
            }
        }
        return null;
    }

    private String replicationProblem() {
        for (Node replica : builtReplicaOf.keySet()) {
            String link = AdminClient.field(admin.call(replica.port(), commands -> commands.info("replication")), "master_link_status");
            if (!"up".equals(link)) {
                return replica + " has master_link_status:" + link;
            }
        }
        for (Node node : nodes) {
            ClusterView view = admin.view(node.port());
            for (Map.Entry<Node, Node> pair : builtReplicaOf.entrySet()) {
                Optional<ClusterView.Entry> seen = view.byId(pair.getKey().nodeId());
                if (seen.isEmpty() || !pair.getValue().nodeId().equals(seen.get().primaryId())) {
                    return node + " does not yet see " + pair.getKey() + " as a replica of " + pair.getValue();
                }
            }
        }
        return null;
    }

    // ---- health

    private String healthProblem() {
        List<Node> responsive = nodes.stream().filter(Node::isResponsive).toList();
        if (responsive.isEmpty()) {
            return "no node is responsive";
        }
        String agreedOwnership = null;
        Node agreedBy = null;
        for (Node node : responsive) {
            // One connection per node and poll: polling opens many, and each leaves a TIME_WAIT socket.
            String[] replies = admin.call(node.port(), commands -> new String[] {commands.clusterInfo(), commands.clusterNodes()});
            String info = replies[0];
            String state = AdminClient.field(info, "cluster_state");
            if (!"ok".equals(state)) {
                return node + " reports cluster_state:" + state;
            }
            String assigned = AdminClient.field(info, "cluster_slots_assigned");
            if (!Integer.toString(SLOTS).equals(assigned)) {
                return node + " reports cluster_slots_assigned:" + assigned;
            }
            ClusterView view = ClusterView.parse(replies[1]);
            String ownership = view.slotOwnership();
            if (agreedOwnership == null) {
                agreedOwnership = ownership;
                agreedBy = node;
            } else if (!agreedOwnership.equals(ownership)) {
                return node + " and " + agreedBy + " disagree on slot owners: " + ownership + " vs " + agreedOwnership;
            }
            for (ClusterView.Entry entry : view.entries()) {
                if (entry.slots().isEmpty()) {
                    continue;
                }
                Optional<Node> owner = byNodeId(entry.id());
                if (owner.isEmpty() || !owner.get().isResponsive()) {
                    return "slots " + entry.slots() + " are still owned by " + owner.map(Object::toString).orElse(entry.id())
                            + ", which is down";
                }
                if (entry.isFailing()) {
                    return node + " still flags " + owner.get() + " as " + entry.flags();
                }
            }
        }
        return null;
    }

    private ClusterView liveView() {
        RuntimeException last = null;
        for (Node node : nodes) {
            if (!node.isResponsive()) {
                continue;
            }
            try {
                return admin.view(node.port());
            } catch (RuntimeException e) {
                last = e;
            }
        }
        throw new IllegalStateException("no node of " + this + " answers", last);
    }

    private Optional<Node> byNodeId(String id) {
        return nodes.stream().filter(node -> id.equals(node.nodeId())).findFirst();
    }

    private void await(String what, Duration timeout, boolean allMustLive, Supplier<String> problem) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last;
        String previous = null;
        while (true) {
            if (allMustLive) {
                List<Node> dead = nodes.stream().filter(node -> !node.isAlive()).toList();
                if (!dead.isEmpty()) {
                    throw new IllegalStateException(dead + " exited while waiting for " + what);
                }
            }
            try {
                last = problem.get();
            } catch (RuntimeException e) {
                last = e.toString();
            }
            if (last == null) {
                return;
            }
            if (!last.equals(previous)) {
                log.debug("waiting for {}: {}", what, last);
                previous = last;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("gave up after " + timeout.toMillis() + " ms waiting for " + what
                        // while forming, the constructor adds the logs itself
                        + "; last problem: " + last + (allMustLive ? "" : describeLogs()));
            }
            sleep(25);
        }
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    private static int reservePort() {
        for (int attempt = 0; attempt < 500; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(FIRST_PORT, LAST_PORT);
            if (!PORTS_HANDED_OUT.contains(port) && bindable(port) && bindable(port + BUS_PORT_OFFSET) && PORTS_HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port pair (port, port + " + BUS_PORT_OFFSET + ") in " + FIRST_PORT + "-" + LAST_PORT);
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(AdminClient.HOST, port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    // ---- stopping

    private void destroy() {
        if (destroyed.getAndSet(true)) {
            return;
        }
        synchronized (lifecycle) {
            spawned.forEach(Node::destroy);
            admin.close();
            deleteRecursively(root);
        }
    }

    private void removeShutdownHook() {
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shutdownInProgress) {
            // the hook is running or about to; nothing to remove
        }
    }

    private static void deleteRecursively(Path path) {
        try (Stream<Path> paths = Files.walk(path)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            log.warn("could not remove {}: {}", path, e.toString());
        }
    }

    private String describeLogs() {
        StringBuilder logs = new StringBuilder();
        for (Node node : nodes) {
            logs.append("\n--- ").append(node).append(node.isAlive() ? "" : " [exited]")
                    .append(", ").append(node.logFile()).append(" (last lines) ---")
                    .append(tail(node.logFile(), 15));
        }
        return logs.toString();
    }

    private static String tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return "\n" + String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "\n(no log: " + e + ")";
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Options for a private cluster. */
    public static final class Builder {

        private boolean replicas;
        private int nodeTimeoutMs = 5000;
        private String password;
        private Duration startupTimeout = Duration.ofSeconds(30);
        private List<Integer> ports = List.of();

        private Builder() {
        }

        /** One replica per primary (6 nodes); needed for failover tests. Default: none. */
        public Builder replicas(boolean replicas) {
            this.replicas = replicas;
            return this;
        }

        /**
         * {@code cluster-node-timeout}: how long a silent node stays healthy before it is suspected; failover
         * starts soon after. Default 5000 ms, long enough that a busy 2-core machine causes no failover;
         * failover tests use around 500 ms.
         */
        public Builder nodeTimeoutMs(int nodeTimeoutMs) {
            if (nodeTimeoutMs < 100) {
                throw new IllegalArgumentException("nodeTimeoutMs must be at least 100, was " + nodeTimeoutMs);
            }
            this.nodeTimeoutMs = nodeTimeoutMs;
            return this;
        }

        /** {@code requirepass} (and {@code masterauth}) on every node; clients must AUTH. Default: none. */
        public Builder password(String password) {
            this.password = Objects.requireNonNull(password, "password");
            return this;
        }

        /**
         * The client ports of the nodes, in start order (primaries, then replicas: 3 or 6 of them), for a test
         * that must name the cluster before it exists, e.g. clients started first ({@link #reservePorts} finds
         * free ones). Each port's bus port (port + 10000) must be free too. Default: free ports chosen at start.
         */
        public Builder ports(List<Integer> ports) {
            List<Integer> copy = List.copyOf(ports);
            if (copy.stream().distinct().count() != copy.size()) {
                throw new IllegalArgumentException("ports must be distinct, were " + copy);
            }
            for (int port : copy) {
                if (port < 1 || port + BUS_PORT_OFFSET > 65535) {
                    throw new IllegalArgumentException("port " + port + " leaves no room for its bus port (port + " + BUS_PORT_OFFSET + ")");
                }
            }
            this.ports = copy;
            return this;
        }

        /** Upper bound for starting and forming the cluster. Default 30 s. */
        public Builder startupTimeout(Duration startupTimeout) {
            this.startupTimeout = Objects.requireNonNull(startupTimeout, "startupTimeout");
            return this;
        }

        public RedisCluster start() {
            return new RedisCluster(this, false);
        }
    }
}
