package dev.tollgate.devstack;

import dev.tollgate.devstack.app.Service;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The dev stack's command line, parsed and checked before anything starts: a typo or two services on
 * one port is a message and exit code 2, not a half-started stack.
 *
 * @param address         where every service listens; loopback by default, because rules-service takes a
 *                        static admin token here that must not be reachable from the network
 * @param checkPort       the first check-service instance (8080)
 * @param extraCheckPort  the second instance; further ones follow on the next ports (8083, 8084, …)
 * @param rulesPort       rules-service (8081)
 * @param rebalancerPort  budget-rebalancer (8082)
 * @param checkInstances  how many check-service instances (pods) share the one Redis Cluster
 * @param canaryPods      how many of them, the last ones, are canary pods ({@code tollgate.rules.canary}): they enforce
 *                        rules' canary versions until they are promoted or rolled back
 * @param devToken        rules-service's static bearer token (dev profile), with every scope
 * @param demoRules       whether the design's demo rules are loaded at start
 * @param properties      extra Spring properties per service ({@code --check-service.tollgate.optimizations.leases=false})
 */
public record StackOptions(String address, int checkPort, int extraCheckPort, int rulesPort, int rebalancerPort,
                           int checkInstances, int canaryPods, String devToken, boolean demoRules,
                           Map<Service, Map<String, String>> properties) {

    public static final int DEFAULT_BASE_PORT = 8080;
    public static final String DEFAULT_TOKEN = "dev-token";
    static final int MAX_CHECK_INSTANCES = 16;

    public static final String USAGE = """
            Usage: java -jar dev-stack/target/tollgate-dev-stack.jar [options]

              --check-instances=N     check-service instances (pods) on one Redis Cluster, 1-%d (default 2)
              --canary-pods=N         how many of them, the last ones, are canary pods: they enforce
                                      rules' canary versions (default 1; 0 with one instance)
              --base-port=P           check-service P, rules-service P+1, budget-rebalancer P+2,
                                      further check-service instances P+3, P+4, ... (default %d)
              --check-port=P          the first check-service instance (overrides --base-port)
              --extra-check-port=P    the second instance; further ones on the ports after it
              --rules-port=P          rules-service
              --rebalancer-port=P     budget-rebalancer
              --address=A             where the services listen (default 127.0.0.1)
              --dev-token=T           rules-service's static admin token (default %s)
              --no-demo-rules         start with an empty rules store
              --<service>.<property>=<value>
                                      a Spring property for one service, e.g.
                                      --check-service.tollgate.optimizations.leases=false
                                      (services: check-service, rules-service, budget-rebalancer)
              --help                  this text
            """.formatted(MAX_CHECK_INSTANCES, DEFAULT_BASE_PORT, DEFAULT_TOKEN);

    public StackOptions {
        if (checkInstances < 1 || checkInstances > MAX_CHECK_INSTANCES) {
            throw new IllegalArgumentException("--check-instances must be between 1 and " + MAX_CHECK_INSTANCES + ", was " + checkInstances);
        }
        if (canaryPods < 0 || canaryPods > checkInstances) {
            throw new IllegalArgumentException("--canary-pods must be between 0 and --check-instances (" + checkInstances + "), was " + canaryPods);
        }
        if (devToken == null || devToken.isBlank() || devToken.chars().anyMatch(c -> c <= ' ' || c == '\'' || c == '"')) {
            throw new IllegalArgumentException("--dev-token must be non-empty, without spaces or quotes (it goes into curl commands)");
        }
        if (address == null || address.isBlank()) {
            throw new IllegalArgumentException("--address must name an address to listen on, e.g. 127.0.0.1");
        }
        Map<Service, Map<String, String>> copy = new EnumMap<>(Service.class);
        (properties == null ? Map.<Service, Map<String, String>>of() : properties)
                .forEach((service, values) -> copy.put(service, Map.copyOf(values)));
        properties = Map.copyOf(copy);
        // every port once: two services on one port would fail half-way through the start
        Map<Integer, String> seen = new LinkedHashMap<>();
        List<String> clashes = new ArrayList<>();
        for (Map.Entry<String, Integer> port : ports(checkPort, extraCheckPort, rulesPort, rebalancerPort, checkInstances).entrySet()) {
            if (port.getValue() < 1 || port.getValue() > 65535) {
                throw new IllegalArgumentException(port.getKey() + " would be on port " + port.getValue() + ", outside 1-65535");
            }
            String other = seen.putIfAbsent(port.getValue(), port.getKey());
            if (other != null) {
                clashes.add(other + " and " + port.getKey() + " both on port " + port.getValue());
            }
        }
        if (!clashes.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", clashes) + ": choose other ports");
        }
    }

    /** The defaults: the ports DESIGN.md names, two pods, demo rules. */
    public static StackOptions defaults() {
        return parse();
    }

    /** @throws IllegalArgumentException with a message for the user, for an unknown or malformed option */
    public static StackOptions parse(String... args) {
        Integer base = null;
        Integer check = null;
        Integer extra = null;
        Integer rules = null;
        Integer rebalancer = null;
        int instances = 2;
        Integer canaries = null;
        String address = "127.0.0.1";
        String token = DEFAULT_TOKEN;
        boolean demo = true;
        Map<Service, Map<String, String>> properties = new EnumMap<>(Service.class);
        for (String arg : args) {
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument '" + arg + "'; options look like --name=value");
            }
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg.substring(2) : arg.substring(2, eq);
            String value = eq < 0 ? null : arg.substring(eq + 1);
            switch (name) {
                case "base-port" -> base = integer(name, value);
                case "check-port" -> check = integer(name, value);
                case "extra-check-port" -> extra = integer(name, value);
                case "rules-port" -> rules = integer(name, value);
                case "rebalancer-port" -> rebalancer = integer(name, value);
                case "check-instances" -> instances = integer(name, value);
                case "canary-pods" -> canaries = integer(name, value);
                case "address" -> address = required(name, value);
                case "dev-token" -> token = required(name, value);
                case "no-demo-rules" -> demo = flag(name, value);
                default -> {
                    Service service = serviceProperty(name);
                    if (service == null) {
                        throw new IllegalArgumentException("unknown option --" + name);
                    }
                    properties.computeIfAbsent(service, s -> new LinkedHashMap<>())
                            .put(name.substring(service.id().length() + 1), value == null ? "" : value);
                }
            }
        }
        int b = base == null ? DEFAULT_BASE_PORT : base;
        return new StackOptions(address, check == null ? b : check, extra == null ? b + 3 : extra,
                rules == null ? b + 1 : rules, rebalancer == null ? b + 2 : rebalancer, instances,
                // one pod alone is no canary: there would be nothing to compare it with
                canaries == null ? (instances > 1 ? 1 : 0) : canaries, token, demo, properties);
    }

    /** The check-service instances' ports, first instance first. */
    public List<Integer> checkPorts() {
        List<Integer> ports = new ArrayList<>();
        ports.add(checkPort);
        for (int i = 1; i < checkInstances; i++) {
            ports.add(extraCheckPort + i - 1);
        }
        return List.copyOf(ports);
    }

    /** Whether the check-service instance at {@code index} (0 for the first) is a canary pod: the last {@code canaryPods} are. */
    public boolean canaryPod(int index) {
        return index >= checkInstances - canaryPods;
    }

    /** Every port the stack's services take, by what takes it. */
    public Map<String, Integer> servicePorts() {
        return ports(checkPort, extraCheckPort, rulesPort, rebalancerPort, checkInstances);
    }

    /** Extra Spring properties given on the command line for one service. */
    public Map<String, String> propertiesFor(Service service) {
        return properties.getOrDefault(service, Map.of());
    }

    private static Map<String, Integer> ports(int check, int extra, int rules, int rebalancer, int instances) {
        Map<String, Integer> ports = new LinkedHashMap<>();
        ports.put(Service.CHECK_SERVICE.id() + " #1", check);
        for (int i = 1; i < instances; i++) {
            ports.put(Service.CHECK_SERVICE.id() + " #" + (i + 1), extra + i - 1);
        }
        ports.put(Service.RULES_SERVICE.id(), rules);
        ports.put(Service.BUDGET_REBALANCER.id(), rebalancer);
        return ports;
    }

    private static Service serviceProperty(String name) {
        for (Service service : Service.values()) {
            if (name.startsWith(service.id() + ".") && name.length() > service.id().length() + 1) {
                return service;
            }
        }
        return null;
    }

    private static int integer(String name, String value) {
        try {
            return Integer.parseInt(required(name, value).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a whole number, was '" + value + "'");
        }
    }

    private static String required(String name, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("--" + name + " needs a value: --" + name + "=...");
        }
        return value;
    }

    private static boolean flag(String name, String value) {
        if (value != null) {
            throw new IllegalArgumentException("--" + name + " takes no value");
        }
        return false;
    }
}
