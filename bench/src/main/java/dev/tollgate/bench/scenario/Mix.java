package dev.tollgate.bench.scenario;

import dev.tollgate.bench.Bench;
import dev.tollgate.client.affinity.Rendezvous;
import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.rules.RuleBook;
import dev.tollgate.limiter.rules.StaticRuleBook;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The design's traffic mix ("Bucket updates per second"): 10% of checks from clients already over their
 * limit; of the rest 75% Enterprise, 15% Growth, 10% Free. Every check carries two entries on the same
 * key, the plan's account bucket and the route bucket, so both go in one script call. Clients under
 * their limit run at about half of it; the over-limit clients are Free keys sending 10× their limit.
 *
 * <p>Keys are named {@code <class>_<n>-r<run>}, so a store call's class can be read off its Redis key.
 *
 * <p>How a client's checks reach the pods is the {@link Routing}: spread at random, over the client's own
 * keep-alive connections, each pinned to one pod, or to the one pod its key hashes to.
 */
final class Mix {

    /** How a client's requests are spread over the pods. */
    enum Routing {
        /**
         * Each client reaches the fleet over its own keep-alive connections, each held by one pod (an L4
         * balancer places connections, not requests). A client keeps about rate × response time requests
         * open (Little's law), one per HTTP/1.1 connection, so it uses that many pods: at a
         * {@link #RESPONSE_TIME_S} response time a 450/s client uses 23 pods and a 6/s client one.
         */
        KEEP_ALIVE("each client over its own keep-alive connections", "keep-alive"),
        /** Every check on a random pod of the fleet: the worst case for anything a pod remembers. */
        SPREAD("every check on a random pod", "random pod"),
        /**
         * Every check on its key's pod, as tollgate-client's key affinity sends it: rendezvous hashing of the key over
         * the pods' addresses, the same {@link Rendezvous} the client runs, so one pod holds a key's lease and denies.
         */
        AFFINITY("every check on its key's pod (the client's key affinity)", "key affinity");

        final String label;
        final String shortName;

        Routing(String label, String shortName) {
            this.label = label;
            this.shortName = shortName;
        }
    }

    /** The response time of the API behind the gateway, which sets how many connections a client holds open. */
    static final double RESPONSE_TIME_S = 0.05;

    /** One client: its check (two entries on its key) and the pods holding its connections (null: any pod). */
    record Client(CheckRequest request, int[] pods) {

        int pod(int fleetSize) {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            return pods == null ? random.nextInt(fleetSize) : pods[random.nextInt(pods.length)];
        }
    }

    enum Kind {
        OVER("over-limit", Plans.FREE, 0.10, 4),
        ENTERPRISE("Enterprise", Plans.ENTERPRISE, 0.90 * 0.75, 6),
        GROWTH("Growth", Plans.GROWTH, 0.90 * 0.15, 9),
        FREE("Free", Plans.FREE, 0.90 * 0.10, 60);

        final String label;
        final Rule plan;
        final double share;
        final int keys;

        Kind(String label, Rule plan, double share, int keys) {
            this.label = label;
            this.plan = plan;
            this.share = share;
            this.keys = keys;
        }

        String prefix() {
            return name().toLowerCase();
        }
    }

    /** Checks per second at which the per-key rates above hold (Enterprise keys at 45% of their limit). */
    static final double NOMINAL_RATE = 4_000;

    static final RuleBook RULES = new StaticRuleBook(List.of(Plans.ENTERPRISE, Plans.GROWTH, Plans.FREE, Plans.ROUTE));

    private final Client[][] clients = new Client[Kind.values().length][];
    private final double[] cumulative = new double[Kind.values().length];

    /** The mix spread at random over the pods, as the latency scenario and the warm-up send it. */
    Mix(Bench bench) {
        this(bench, Routing.SPREAD, NOMINAL_RATE, Bench.PODS);
    }

    /**
     * @param rate total checks per second, which sets each client's rate and so its connections
     * @param pods the fleet the clients' connections are spread over
     */
    Mix(Bench bench, Routing routing, double rate, int pods) {
        this(bench, routing, rate, pods, false);
    }

    /**
     * @param routeOnItsOwnKey the route bucket keyed apart from the account ({@code <key>.route}, another slot),
     *                         so each check is two script calls whose verdicts can differ
     */
    Mix(Bench bench, Routing routing, double rate, int pods, boolean routeOnItsOwnKey) {
        this(bench, routing, rate, pods, routeOnItsOwnKey, 1);
    }

    /**
     * The mix spread over about {@code keys} keys: the clients under their limit are multiplied (so each sends
     * that much less), the over-limit clients stay as few as they are, so that they stay over their limit at
     * any rate. Every check on a random pod; for a load that goes to one server (scenario 8).
     */
    static Mix overKeys(Bench bench, int keys) {
        int underLimit = Kind.ENTERPRISE.keys + Kind.GROWTH.keys + Kind.FREE.keys;
        int scale = Math.max(1, Math.round((float) (keys - Kind.OVER.keys) / underLimit));
        return new Mix(bench, Routing.SPREAD, NOMINAL_RATE, 1, false, scale);
    }

    private Mix(Bench bench, Routing routing, double rate, int pods, boolean routeOnItsOwnKey, int keyScale) {
        String run = bench.key("");
        Rendezvous ring = Rendezvous.of(podAddresses(pods));
        double sum = 0;
        for (Kind kind : Kind.values()) {
            int connections = connections(kind, rate, pods);
            Client[] forKind = new Client[kind == Kind.OVER ? kind.keys : kind.keys * keyScale];
            for (int i = 0; i < forKind.length; i++) {
                String key = kind.prefix() + "_" + i + run;
                CheckRequest request = new CheckRequest(Bench.DOMAIN, List.of(
                        CheckEntry.of(kind.plan.id(), key, 1), CheckEntry.of(Plans.ROUTE.id(), routeOnItsOwnKey ? key + ".route" : key, 1)));
                int[] held = switch (routing) {
                    case SPREAD -> null;
                    case KEEP_ALIVE -> distinctPods(connections, pods);
                    case AFFINITY -> new int[] {ring.first(key)};
                };
                forKind[i] = new Client(request, held);
            }
            clients[kind.ordinal()] = forKind;
            sum += kind.share;
            cumulative[kind.ordinal()] = sum;
        }
    }

    /** The connections a client holds at a given rate: about rate × response time, at least one. */
    static int connections(Kind kind, double rate, int pods) {
        return (int) Math.max(1, Math.min(pods, Math.ceil(perKeyRate(kind, rate) * RESPONSE_TIME_S)));
    }

    /** Pod i's address as a client would know it from the headless Service: what the ring hashes, never an index. */
    static List<String> podAddresses(int pods) {
        List<String> addresses = new ArrayList<>(pods);
        for (int i = 0; i < pods; i++) {
            addresses.add("10.1." + (i / 250) + "." + (i % 250 + 2) + ":8080");
        }
        return addresses;
    }

    private static int[] distinctPods(int count, int pods) {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < pods; i++) {
            all.add(i);
        }
        Collections.shuffle(all);
        return all.subList(0, count).stream().mapToInt(Integer::intValue).toArray();
    }

    /** Every client of the mix, each once. */
    List<Client> clients() {
        List<Client> all = new ArrayList<>();
        for (Client[] forKind : clients) {
            all.addAll(List.of(forKind));
        }
        return all;
    }

    Kind pickKind() {
        double r = ThreadLocalRandom.current().nextDouble() * cumulative[cumulative.length - 1];
        for (Kind kind : Kind.values()) {
            if (r < cumulative[kind.ordinal()]) {
                return kind;
            }
        }
        return Kind.FREE;
    }

    Client pick(Kind kind) {
        Client[] forKind = clients[kind.ordinal()];
        return forKind[ThreadLocalRandom.current().nextInt(forKind.length)];
    }

    /** The class of a Redis key {@code rl:{<class>_<n>-r<run>}:<rule>}. */
    static String classOf(String redisKey) {
        int open = redisKey.indexOf('{');
        int underscore = redisKey.indexOf('_', open + 1);
        if (open < 0 || underscore < 0) {
            return "other";
        }
        return redisKey.substring(open + 1, underscore);
    }

    /** Offered rate per key of a class, at the mix's total rate. */
    static double perKeyRate(Kind kind, double totalRate) {
        return totalRate * kind.share / kind.keys;
    }
}
