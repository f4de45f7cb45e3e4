package dev.tollgate.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docker-compose.yml, read as Compose reads it (YAML anchors and merge keys resolved): the services,
 * their ports, health checks and start order, and the Redis Cluster's settings.
 */
class DockerComposeTest {

    private static final List<String> REDIS_NODES = IntStream.rangeClosed(1, 6).mapToObj(i -> "redis-" + i).toList();

    private final Tree compose = Tree.of(new Yaml(new LoaderOptions()).load(RepositoryFiles.read("docker-compose.yml")));

    private Tree service(String name) {
        Tree service = compose.at("services", name);
        assertThat(service.exists()).as("service %s", name).isTrue();
        return service;
    }

    @Test
    void runsTheWholeSuite() {
        assertThat(compose.at("services").map()).containsOnlyKeys(
                "postgres", "redis-1", "redis-2", "redis-3", "redis-4", "redis-5", "redis-6",
                "redis-cluster-init", "flyway-migrate", "check-service", "rules-service", "budget-rebalancer");
        assertThat(service("postgres").at("image").text()).startsWith("postgres:16");
    }

    @Test
    void publishesEnvoysRateLimitServiceBesideTheHttpCheck() {
        assertThat(service("check-service").texts("ports")).containsExactly("127.0.0.1:8080:8080", "127.0.0.1:8090:8090");
        assertThat(service("rules-service").texts("ports")).hasSize(1);
        assertThat(service("budget-rebalancer").texts("ports")).hasSize(1);
    }

    @ParameterizedTest
    @CsvSource({"check-service, 8080", "rules-service, 8081", "budget-rebalancer, 8082"})
    void publishesEachServiceOnItsPortAndChecksItsReadiness(String name, int port) {
        Tree service = service(name);

        // loopback only: rules-service takes a static admin token here
        assertThat(service.texts("ports")).first().isEqualTo("127.0.0.1:" + port + ":" + port);
        assertThat(service.at("build").text()).isEqualTo("./" + name);
        assertThat(service.texts("healthcheck", "test"))
                .contains("http://127.0.0.1:" + port + "/actuator/health/readiness");
        assertThat(service.at("healthcheck", "start_period").text()).isNotBlank();
    }

    @Test
    void keepsTheStoresOffTheHost() {
        assertThat(service("postgres").at("ports").exists()).isFalse();
        assertThat(REDIS_NODES).allSatisfy(node -> assertThat(service(node).at("ports").exists()).isFalse());
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis-1", "redis-2", "redis-3", "redis-4", "redis-5", "redis-6"})
    void runsEveryRedisNodeInClusterModeThatSurvivesAPrimaryLoss(String node) {
        List<String> command = service(node).texts("command");

        assertThat(service(node).at("image").text()).isEqualTo("redis:7");
        assertThat(flag(command, "--cluster-enabled")).isEqualTo("yes");
        assertThat(flag(command, "--cluster-require-full-coverage")).isEqualTo("no");
        assertThat(flag(command, "--cluster-node-timeout")).isEqualTo("5000");
        assertThat(flag(command, "--appendonly")).isEqualTo("no");
        assertThat(flag(command, "--save")).isEqualTo("");
        assertThat(service(node).texts("healthcheck", "test")).contains("redis-cli", "ping");
    }

    @Test
    void explainsHowTheNodeTimeoutSetsFailoverTime() {
        String file = RepositoryFiles.read("docker-compose.yml");

        assertThat(file).contains("cluster-node-timeout 5000").contains("promoted about node-timeout + ~1 s")
                .contains("cluster-require-full-coverage no");
    }

    @Test
    void createsTheClusterWithAReplicaPerPrimaryOnceEveryNodeIsHealthy() {
        Tree init = service("redis-cluster-init");
        String script = init.at("command").items().get(0).text();

        assertThat(init.at("depends_on").map()).containsOnlyKeys(REDIS_NODES.toArray(String[]::new));
        assertThat(REDIS_NODES).allSatisfy(node -> assertThat(init.at("depends_on", node, "condition").text()).isEqualTo("service_healthy"));
        assertThat(script).contains("redis-cli --cluster create", "--cluster-replicas 1", "--cluster-yes", "cluster_state:ok");
        assertThat(script).doesNotContainPattern("[^$]\\$[a-z(]").as("every shell $ is escaped from compose as $$");
        assertThat(init.at("restart").text()).isEqualTo("no");
    }

    @Test
    void migratesTheRulesStoreOnceBeforeTheServicesThatUseIt() {
        Tree migrate = service("flyway-migrate");

        assertThat(migrate.at("build").text()).isEqualTo("./db");
        assertThat(migrate.at("command").value()).isEqualTo(List.of("migrate"));
        assertThat(migrate.at("depends_on", "postgres", "condition").text()).isEqualTo("service_healthy");
        assertThat(migrate.at("environment", "FLYWAY_URL").text()).isEqualTo("jdbc:postgresql://postgres:5432/tollgate");
        assertThat(service("postgres").at("healthcheck", "test").value().toString()).contains("pg_isready");

        for (String name : List.of("rules-service", "budget-rebalancer")) {
            Tree dependsOn = service(name).at("depends_on");
            assertThat(dependsOn.at("flyway-migrate", "condition").text()).as(name).isEqualTo("service_completed_successfully");
            assertThat(dependsOn.at("postgres", "condition").text()).as(name).isEqualTo("service_healthy");
            assertThat(dependsOn.at("redis-cluster-init", "condition").text()).as(name).isEqualTo("service_completed_successfully");
            assertThat(service(name).at("environment", "SPRING_FLYWAY_ENABLED").text()).as(name).isEqualTo("false");
        }
    }

    @Test
    void startsCheckServiceOnTheClusterWithoutWaitingForRules() {
        // A rules outage never blocks the check path, so check-service does not wait for rules-service.
        Tree checkService = service("check-service");

        assertThat(checkService.at("depends_on").map()).containsOnlyKeys("redis-cluster-init");
        assertThat(checkService.at("environment", "TOLLGATE_RULES_SERVICE_URL").text()).isEqualTo("http://rules-service:8081");
        assertThat(checkService.texts("volumes")).contains("check-rules-snapshot:/var/lib/tollgate");
        assertThat(checkService.at("depends_on", "redis-cluster-init", "condition").text()).isEqualTo("service_completed_successfully");
        assertThat(checkService.at("environment", "SPRING_DATA_REDIS_CLUSTER_NODES").text().split(","))
                .hasSize(6).allSatisfy(node -> assertThat(node).matches("redis-[1-6]:6379"));
    }

    @Test
    void usesTheDevTokenOnlyInTheLocalStack() {
        Map<String, Object> env = service("rules-service").at("environment").map();

        assertThat(env).containsEntry("SPRING_PROFILES_ACTIVE", "dev").containsKey("TOLLGATE_DEV_TOKEN");
    }

    @Test
    void givesTheDevTokenExplicitlyLongEnoughForEveryInterfaceAndTheSameToThePods() {
        // rules-service has no default token and, listening on every interface of its container,
        // refuses a token shorter than 16 characters; the pods follow the watch feed with the same one
        String token = service("rules-service").at("environment", "TOLLGATE_DEV_TOKEN").text();

        assertThat(token).isNotBlank().hasSizeGreaterThanOrEqualTo(16).isNotEqualTo("dev-token");
        assertThat(compose.at("x-dev-token").text()).isEqualTo(token);
        assertThat(service("check-service").at("environment", "TOLLGATE_RULES_TOKEN").text()).isEqualTo(token);
        assertThat(RepositoryFiles.read("docker-compose.yml")).contains("DEVELOPMENT ONLY");
    }

    @Test
    void publishesNothingBeyondTheHostsLoopback() {
        for (Map.Entry<String, Object> entry : compose.at("services").map().entrySet()) {
            Tree ports = compose.at("services", entry.getKey(), "ports");
            if (ports.exists()) {
                assertThat(ports.items()).as(entry.getKey()).allSatisfy(port -> assertThat(port.text()).startsWith("127.0.0.1:"));
            }
        }
    }

    private static String flag(List<String> command, String name) {
        int at = command.indexOf(name);
        assertThat(at).as("flag %s in %s", name, command).isNotNegative();
        return command.get(at + 1);
    }
}
