package dev.tollgate.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/** The images' Dockerfiles, read as instructions (comments dropped, continued lines joined). */
class DockerfileTest {

    record Instruction(String keyword, String arguments) {
    }

    @ParameterizedTest
    @ValueSource(strings = {"check-service", "rules-service", "budget-rebalancer", "db"})
    void runsAsANonRootUser(String module) {
        List<Instruction> instructions = instructions(module);
        String user = instructions.stream().filter(i -> i.keyword().equals("USER")).reduce((a, b) -> b)
                .map(Instruction::arguments).orElseThrow(() -> new AssertionError(module + "/Dockerfile sets no USER"));
        String uid = user.split(":")[0];

        assertThat(uid).isNotIn("root", "0").matches("[1-9][0-9]*");
        assertThat(all(instructions, "USER")).as("nothing switches back to root").allSatisfy(u -> assertThat(u).doesNotStartWith("root").doesNotStartWith("0"));
    }

    @ParameterizedTest
    @CsvSource({"check-service, 8080, 25", "rules-service, 8081, 17", "budget-rebalancer, 8082, 17"})
    void runsTheBootJarOnASmallJreWithAReadinessHealthcheck(String module, int port, int java) {
        List<Instruction> instructions = instructions(module);

        assertThat(last(instructions, "FROM")).as("the image that runs").isEqualTo("eclipse-temurin:" + java + "-jre-alpine");
        assertThat(first(instructions, "EXPOSE")).isEqualTo(String.valueOf(port));
        assertThat(first(instructions, "HEALTHCHECK")).contains("http://127.0.0.1:" + port + "/actuator/health/readiness");
        assertThat(all(instructions, "ENV")).anySatisfy(env -> assertThat(env)
                .startsWith("JAVA_TOOL_OPTIONS=").contains("-XX:MaxRAMPercentage=").contains("-XX:+ExitOnOutOfMemoryError"));
        assertThat(first(instructions, "ENTRYPOINT")).startsWith("[\"java\", ").endsWith("\"-jar\", \"/app/app.jar\"]");
    }

    @ParameterizedTest
    @ValueSource(strings = {"rules-service", "budget-rebalancer"})
    void runsTheExecutableJar(String module) {
        assertThat(first(instructions(module), "COPY")).matches("target/tollgate-" + module + "-\\*\\.jar /app/app\\.jar");
        assertThat(first(instructions(module), "ENTRYPOINT")).isEqualTo("[\"java\", \"-jar\", \"/app/app.jar\"]");
    }

    /** check-service, whose pods the autoscaler adds during a spike, starts from Boot's extracted layout: plain jars, no nested-jar loader. */
    @Test
    void checkServiceRunsBootsExtractedLayout() {
        List<Instruction> instructions = instructions("check-service");

        assertThat(first(instructions, "FROM")).isEqualTo("eclipse-temurin:25-jre-alpine AS extract");
        assertThat(first(instructions, "COPY")).isEqualTo("target/tollgate-check-service-*.jar app.jar");
        assertThat(first(instructions, "RUN")).isEqualTo("java -Djarmode=tools -jar app.jar extract --destination /extract/app");
        assertThat(all(instructions, "COPY")).contains("--from=extract /extract/app/ /app/");
    }

    /**
     * The AOT cache a pod starts from is trained in the image that runs it, on the files it runs (a cache records the JRE
     * build and each jar's size and time), with the collector the pod runs (the image's flags and the chart's name G1).
     */
    @Test
    void checkServiceTrainsItsAotCacheInTheImageItRuns() {
        List<Instruction> instructions = instructions("check-service");
        int layout = instructions.indexOf(new Instruction("COPY", "--from=extract /extract/app/ /app/"));
        int flags = indexOf(instructions, "ENV", "JAVA_TOOL_OPTIONS=");
        int training = indexOf(instructions, "RUN", "cd /opt/tollgate && APP=/app/app.jar AOT=on ");

        assertThat(instructions.get(training).arguments()).contains(" sh fast-start.sh");
        assertThat(layout).as("trained after the layout is in place").isLessThan(training);
        assertThat(flags).as("trained with the image's own JVM flags").isLessThan(training);
        assertThat(instructions.subList(training + 1, instructions.size())).as("nothing touches /app after the training")
                .noneMatch(i -> i.arguments().contains("/app/") && !i.keyword().equals("ENTRYPOINT") && !i.keyword().equals("HEALTHCHECK"));
        assertThat(all(instructions, "COPY")).contains("fast-start.sh /opt/tollgate/fast-start.sh");
        assertThat(instructions.get(flags).arguments()).contains("-XX:+UseG1GC");
        assertThat(RepositoryFiles.read("helm/tollgate/values.yaml")).contains("javaToolOptions: \"-XX:+UseG1GC ");
        // fast-start.sh writes the cache beside the jar it trains, app.aot on Java 25
        assertThat(first(instructions, "ENTRYPOINT")).isEqualTo("[\"java\", \"-XX:AOTCache=/app/app.aot\", \"-jar\", \"/app/app.jar\"]");
        assertThat(RepositoryFiles.read("check-service/fast-start.sh")).contains("train=\"-XX:AOTCacheOutput=$dest/app.aot\"");
    }

    @ParameterizedTest
    @ValueSource(strings = {"rules-service", "budget-rebalancer"})
    void sendsOnlyTheJarAsBuildContext(String module) {
        assertThat(RepositoryFiles.read(module + "/.dockerignore").lines().filter(l -> !l.startsWith("#")).toList())
                .containsExactly("*", "!target/tollgate-*.jar");
    }

    @Test
    void checkServiceSendsTheJarAndItsTrainingScript() {
        assertThat(RepositoryFiles.read("check-service/.dockerignore").lines().filter(l -> !l.startsWith("#")).toList())
                .containsExactly("*", "!target/tollgate-*.jar", "!fast-start.sh");
    }

    @ParameterizedTest
    @ValueSource(strings = {"db"})
    void bakesTheMigrationsIntoTheFlywayImage(String module) {
        List<Instruction> instructions = instructions(module);

        assertThat(first(instructions, "FROM")).startsWith("flyway/flyway:11");
        assertThat(first(instructions, "COPY")).isEqualTo("src/main/resources/db/migration/ /flyway/sql/");
        assertThat(first(instructions, "CMD")).isEqualTo("[\"migrate\"]");
    }

    private static List<String> all(List<Instruction> instructions, String keyword) {
        return instructions.stream().filter(i -> i.keyword().equals(keyword)).map(Instruction::arguments).toList();
    }

    private static int indexOf(List<Instruction> instructions, String keyword, String argumentsStart) {
        for (int i = 0; i < instructions.size(); i++) {
            if (instructions.get(i).keyword().equals(keyword) && instructions.get(i).arguments().startsWith(argumentsStart)) {
                return i;
            }
        }
        throw new AssertionError("no " + keyword + " " + argumentsStart + "...");
    }

    private static String last(List<Instruction> instructions, String keyword) {
        List<String> found = all(instructions, keyword);
        assertThat(found).as("a %s", keyword).isNotEmpty();
        return found.get(found.size() - 1);
    }

    private static String first(List<Instruction> instructions, String keyword) {
        return instructions.stream().filter(i -> i.keyword().equals(keyword)).findFirst()
                .map(Instruction::arguments).orElseThrow(() -> new AssertionError("no " + keyword));
    }

    private static List<Instruction> instructions(String module) {
        List<Instruction> instructions = new ArrayList<>();
        StringBuilder pending = new StringBuilder();
        for (String line : RepositoryFiles.read(module + "/Dockerfile").lines().toList()) {
            String trimmed = line.strip();
            if (trimmed.startsWith("#") || (trimmed.isEmpty() && pending.isEmpty())) {
                continue;
            }
            if (trimmed.endsWith("\\")) {
                pending.append(trimmed, 0, trimmed.length() - 1).append(' ');
                continue;
            }
            pending.append(trimmed);
            String[] parts = pending.toString().strip().split("\\s+", 2);
            instructions.add(new Instruction(parts[0].toUpperCase(Locale.ROOT), parts.length > 1 ? parts[1].strip() : ""));
            pending.setLength(0);
        }
        return instructions;
    }
}
