package dev.tollgate.devstack.app;

import dev.tollgate.check.CheckServiceApplication;
import dev.tollgate.rebalancer.RebalancerApplication;
import dev.tollgate.rules.RulesServiceApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.BindException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Starts each service as its own Spring Boot application in this JVM, configured as its module would be
 * on its own.
 *
 * <p>Three things differ from a service alone on its classpath, and each is handled here:
 * <ul>
 *   <li>Both web stacks are present, so each service's {@link WebApplicationType} is set explicitly
 *       (check-service WebFlux on Netty, the others servlet on Tomcat).</li>
 *   <li>Every module has an {@code application.yml} at its root; each service gets its own through
 *       {@link OwnConfig}.</li>
 *   <li>Spring Boot configures whatever libraries it finds: rules-service's JDBC, Flyway and Spring
 *       Security would otherwise switch on in check-service (a DataSource with no URL fails its start; a
 *       generated password would guard {@code /v1/ratelimit:check}). Those auto-configurations are
 *       excluded per service, leaving each what its own module gives it.</li>
 * </ul>
 * Properties go in as command-line arguments, not as {@code SpringApplicationBuilder.properties}: those
 * are defaults that each service's own {@code application.yml} would override (its {@code server.port},
 * for one).
 */
public final class ServiceLauncher {

    /** The dev stack is one region; rules-service's usage view and the pods must name the same one. */
    public static final String REGION = "local";

    /**
     * The pods' Redis command timeout. Production uses 5 ms; here every service, both servers and the load
     * share one laptop JVM, and a 20 ms GC pause of the whole stack is not a store outage (login, which
     * fails closed, would answer 503).
     */
    static final String POD_COMMAND_TIMEOUT = "100ms";

    private static final List<String> SECURITY = List.of(
            "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.ReactiveUserDetailsServiceAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.web.reactive.ReactiveWebSecurityAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.actuate.web.reactive.ReactiveManagementWebSecurityAutoConfiguration",
            "org.springframework.boot.security.oauth2.server.resource.autoconfigure.servlet.OAuth2ResourceServerAutoConfiguration",
            "org.springframework.boot.security.oauth2.server.resource.autoconfigure.reactive.ReactiveOAuth2ResourceServerAutoConfiguration");
    private static final String FLYWAY = "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration";
    /**
     * check-service's RestClient brings Boot's HTTP client auto-configuration, whose reactive half gives a servlet
     * service a Reactor Netty resource factory on the JVM-wide loops: closing that service (a test stops rules-service)
     * would dispose the loops the check-service pods serve on. The servlet services use no reactive client.
     */
    public static final String REACTIVE_HTTP_CLIENT = "org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration";

    /** What check-service's own module does not have: rules-service's database and security, Tomcat for WebFlux. */
    static final List<String> NOT_IN_CHECK_SERVICE = concat(SECURITY, List.of(
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            FLYWAY,
            // Tomcat can serve WebFlux too; check-service runs on Netty, as in production
            "org.springframework.boot.tomcat.autoconfigure.reactive.TomcatReactiveWebServerAutoConfiguration",
            "org.springframework.boot.tomcat.autoconfigure.actuate.web.server.TomcatReactiveManagementContextAutoConfiguration",
            // as check-service's own application.yml excludes it, which this list replaces: no observation per Redis command
            "org.springframework.boot.data.redis.autoconfigure.observation.LettuceObservationAutoConfiguration"));

    /** The rebalancer never migrates (a Job or rules-service does) and has no admin API to guard. */
    static final List<String> NOT_IN_REBALANCER = concat(SECURITY, List.of(FLYWAY, REACTIVE_HTTP_CLIENT));

    private ServiceLauncher() {
    }

    /**
     * A check-service pod following rules-service's watch feed.
     *
     * @param snapshotFile where the pod keeps its last good rules snapshot; one per pod
     * @param grpcPort     the pod's Envoy RLS port (0: any free one)
     */
    public static RunningApp checkService(String name, String address, int port, int grpcPort, String redisNodes,
                                          String rulesServiceUrl, String token, Path snapshotFile, Map<String, String> extra) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("spring.autoconfigure.exclude", String.join(",", NOT_IN_CHECK_SERVICE));
        // rules-service's springdoc is on the classpath too; check-service has no API document of its own
        properties.put("springdoc.api-docs.enabled", "false");
        properties.put("spring.data.redis.cluster.nodes", redisNodes);
        properties.put("tollgate.redis.command-timeout", POD_COMMAND_TIMEOUT);
        properties.put("tollgate.rules.service-url", rulesServiceUrl);
        properties.put("tollgate.rules.token", token);
        properties.put("tollgate.rules.snapshot-file", snapshotFile.toString());
        properties.put("tollgate.rules.file", "");
        properties.put("tollgate.grpc.address", address);
        properties.put("tollgate.grpc.port", Integer.toString(grpcPort));
        properties.put("tollgate.region.name", REGION);
        // the stack's pods share one JVM, whose JIT the first one's traffic warms for all: a warm-up per pod would only hold
        // a laptop's cores for a minute (--check-service.tollgate.warm-up.enabled=true turns it on)
        properties.put("tollgate.warm-up.enabled", "false");
        // the default id is host name + PID, the same for every pod in this JVM: they would count as one
        properties.put("tollgate.pods.id", "dev-" + name.replace(" #", "-"));
        return start(Service.CHECK_SERVICE, name, CheckServiceApplication.class, WebApplicationType.REACTIVE, address, port,
                properties, extra);
    }

    /** rules-service in its dev profile: the static token, with every scope, instead of JWTs. */
    public static RunningApp rulesService(String address, int port, Database database, String redisNodes, String devToken,
                                          Map<String, String> extra) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("spring.profiles.active", "dev");
        properties.put("spring.autoconfigure.exclude", REACTIVE_HTTP_CLIENT);
        properties.put("tollgate.security.dev-token", devToken);
        properties.putAll(database.springProperties());
        properties.put("tollgate.usage.region", REGION);
        properties.put("spring.data.redis.cluster.nodes", redisNodes);
        return start(Service.RULES_SERVICE, Service.RULES_SERVICE.id(), RulesServiceApplication.class, WebApplicationType.SERVLET,
                address, port, properties, extra);
    }

    /** The budget-rebalancer on the stack's one region: every 10 s, each key's share from the usage the pods record. */
    public static RunningApp rebalancer(String address, int port, Database database, String redisNodes, Map<String, String> extra) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("spring.autoconfigure.exclude", String.join(",", NOT_IN_REBALANCER));
        properties.put("springdoc.api-docs.enabled", "false");
        properties.putAll(database.springProperties());
        properties.put("tollgate.region", REGION);
        properties.put("spring.data.redis.cluster.nodes", redisNodes);
        return start(Service.BUDGET_REBALANCER, Service.BUDGET_REBALANCER.id(), RebalancerApplication.class, WebApplicationType.SERVLET,
                address, port, properties, extra);
    }

    static RunningApp start(Service service, String name, Class<?> application, WebApplicationType type, String address, int port,
                            Map<String, String> properties, Map<String, String> extra) {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("spring.config.location", OwnConfig.locationOf(application));
        all.put("server.address", address);
        all.put("server.port", Integer.toString(port));
        // Ctrl-C should stop the stack now; nothing here has in-flight work worth waiting for
        all.put("server.shutdown", "immediate");
        all.put("spring.main.banner-mode", "off");
        // the dev stack closes the services itself, in order (pods before rules-service, all before the stores)
        all.put("spring.main.register-shutdown-hook", "false");
        // each service's meters stay in its own registry rather than also in one JVM-wide composite
        all.put("management.metrics.use-global-registry", "false");
        all.putAll(properties);
        // last, so that a --<service>.<property> option wins over the dev stack's choice
        all.putAll(extra);
        List<String> args = new ArrayList<>();
        all.forEach((key, value) -> args.add("--" + key + "=" + value));
        try {
            ConfigurableApplicationContext context = new SpringApplicationBuilder(application)
                    .web(type)
                    .logStartupInfo(false)
                    .run(args.toArray(String[]::new));
            int actual = context.getEnvironment().getProperty("local.server.port", Integer.class, port);
            return new RunningApp(service, name, address, actual, context);
        } catch (RuntimeException e) {
            if (causedByBind(e)) {
                throw new IllegalStateException(name + " could not listen on " + address + ":" + port
                        + ": the port is already in use (taken after the dev stack checked it)", e);
            }
            throw new IllegalStateException(name + " failed to start: " + rootMessage(e), e);
        }
    }

    private static boolean causedByBind(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof BindException || cause.getClass().getSimpleName().equals("PortInUseException")) {
                return true;
            }
        }
        return false;
    }

    private static String rootMessage(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == error ? String.valueOf(error.getMessage()) : error.getMessage() + " (cause: " + root + ")";
    }

    private static List<String> concat(List<String> first, List<String> second) {
        List<String> all = new ArrayList<>(first);
        all.addAll(second);
        return List.copyOf(all);
    }

    /** A PostgreSQL database as Spring's {@code spring.datasource.*} properties name it. */
    public record Database(String url, String username, String password) {

        Map<String, String> springProperties() {
            Map<String, String> properties = new LinkedHashMap<>();
            properties.put("spring.datasource.url", url);
            properties.put("spring.datasource.username", username);
            properties.put("spring.datasource.password", password == null ? "" : password);
            return properties;
        }
    }
}
