package dev.tollgate.rules;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged jar ({@code java -jar tollgate-cli.jar}, as a CI job runs it) against a real rules-service on a real
 * PostgreSQL, started as ConfigApplyIT starts it ({@link ServiceTestBase}; in this package for its package-private
 * base and {@link TestTokens}). The example directory is applied as it is; the other tests work in domains of their own.
 */
class CliRulesAsCodeIT extends ServiceTestBase {

    private static final Path EXAMPLE = Path.of("..", "examples", "rules-as-code", "rules");
    private static final String JAR = System.getProperty("tollgate.cli.jar", "target/tollgate-cli.jar");

    @TempDir
    Path temp;

    private record Run(int exit, String out, String err) {
    }

    private Run cli(String token, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", JAR));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        Map<String, String> env = builder.environment();
        env.remove("TOLLGATE_TOKEN");
        env.put("TOLLGATE_URL", "http://127.0.0.1:" + port);
        if (token != null) {
            env.put("TOLLGATE_TOKEN", token);
        }
        Path out = Files.createTempFile(temp, "out", ".txt");
        Path err = Files.createTempFile(temp, "err", ".txt");
        Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("tollgate " + String.join(" ", args) + " did not end in 60 s");
        }
        return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
    }

    private Path exampleAs(String domain) throws IOException {
        Path dir = Files.createDirectories(temp.resolve(domain));
        Files.writeString(dir.resolve(domain + ".yaml"), Files.readString(EXAMPLE.resolve("public-api.yaml")).replace("public-api", domain));
        return dir;
    }

    @Test
    void theExampleValidatesAppliesDiffsToNothingAndExportsBackByteForByte() throws Exception {
        String admin = TestTokens.all("alice");
        String reader = TestTokens.token("bob", TestTokens.READ);

        Run validate = cli(null, "validate", "-f", EXAMPLE.toString());
        assertThat(validate.exit()).as(validate.toString()).isZero();

        Run apply = cli(admin, "apply", "-f", EXAMPLE.toString(), "--reason", "ci run 7");
        assertThat(apply.exit()).as(apply.toString()).isZero();
        assertThat(apply.out()).contains("domain public-api: would change: 7 created", "applied 2 domains");
        assertThat(api.get("/v1/rules/public-api.login/versions").json().get(0).get("reason").asString()).isEqualTo("ci run 7");

        Run diff = cli(reader, "diff", "-f", EXAMPLE.toString());
        assertThat(diff.exit()).as(diff.toString()).isZero();
        assertThat(diff.out()).contains("domain public-api: no changes (7 unchanged)", "domain internal-tools: no changes (1 unchanged)");
        Run again = cli(admin, "apply", "-f", EXAMPLE.toString());
        assertThat(again.exit()).as(again.toString()).isZero();
        assertThat(again.out()).contains("nothing to change");

        Path exported = temp.resolve("exported");
        Run export = cli(reader, "export", "--domain", "public-api", "--domain", "internal-tools", "-o", exported.toString());
        assertThat(export.exit()).as(export.toString()).isZero();
        for (String domain : List.of("public-api", "internal-tools")) {
            assertThat(Files.readAllBytes(exported.resolve(domain + ".yaml"))).isEqualTo(Files.readAllBytes(EXAMPLE.resolve(domain + ".yaml")));
        }
    }

    @Test
    void aDiffShowsTheFieldsAndExitsThreeAndAnApplyFromAStaleDigestIsRefused() throws Exception {
        String domain = uniqueId("cli");
        String admin = TestTokens.all("alice");
        Path dir = exampleAs(domain);
        assertThat(cli(admin, "apply", "-f", dir.toString()).exit()).isZero();
        Path file = dir.resolve(domain + ".yaml");
        Files.writeString(file, Files.readString(file).replace("    rate_per_s: 100\n    burst: 200\n", "    rate_per_s: 100\n    burst: 300\n"));

        Path digests = temp.resolve("digests.txt");
        Run diff = cli(TestTokens.token("bob", TestTokens.READ), "diff", "-f", dir.toString(), "--digests-out", digests.toString());
        assertThat(diff.exit()).as(diff.toString()).isEqualTo(3);
        assertThat(diff.out()).contains("~ rule " + domain + ".growth-global", "burst: 200 -> 300");
        Run dryRun = cli(admin, "apply", "--dry-run", "-f", dir.toString());
        assertThat(dryRun.exit()).as(dryRun.toString()).isEqualTo(3);
        assertThat(api.get("/v1/rules/" + domain + ".growth-global").json().get("burst").asInt()).isEqualTo(200);

        // someone changes the domain by hand after the diff was reviewed
        Api.Response login = api.get("/v1/rules/" + domain + ".login");
        Api.Response byHand = api.request("PUT", "/v1/rules/" + domain + ".login").ifMatch(login.json().get("version").asLong())
                .body(Api.json("{'domain':'" + domain + "','match':{'route':'/v1/login'},'identity':'ip','algorithm':'sliding_log',"
                        + "'limit':6,'window_s':60,'fail_mode':'closed'}")).send();
        assertThat(byHand.status).as(byHand.toString()).isEqualTo(200);

        Run stale = cli(admin, "apply", "-f", dir.toString(), "--digests", digests.toString());

        assertThat(stale.exit()).as(stale.toString()).isEqualTo(1);
        assertThat(stale.out()).contains("409 version_conflict", "changed since", "nothing applied");
        assertThat(api.get("/v1/rules/" + domain + ".login").json().get("limit").asInt()).isEqualTo(6);
        assertThat(api.get("/v1/rules/" + domain + ".growth-global").json().get("burst").asInt()).isEqualTo(200);
    }

    @Test
    void aWrongTokenExitsTwoAndIsNeverPrinted() throws Exception {
        Path dir = exampleAs(uniqueId("cli"));
        String stranger = TestTokens.signedByStranger("mallory", TestTokens.ADMIN);
        String reader = TestTokens.token("bob", TestTokens.READ);

        Run wrong = cli(stranger, "diff", "-f", dir.toString());
        Run noScope = cli(reader, "apply", "-f", dir.toString());

        assertThat(wrong.exit()).as(wrong.toString()).isEqualTo(2);
        assertThat(wrong.out()).contains("HTTP 401 unauthorized", "the token was not accepted");
        assertThat(noScope.exit()).as(noScope.toString()).isEqualTo(2);
        assertThat(noScope.out()).contains("HTTP 403 forbidden", "ratelimit:admin");
        assertThat(wrong.out() + wrong.err() + noScope.out() + noScope.err()).doesNotContain(stranger).doesNotContain(reader);
    }

    @Test
    void whatOnlyTheStoreCanRefuseExitsOne() throws Exception {
        String theirs = uniqueId("cli");
        assertThat(cli(TestTokens.all("alice"), "apply", "-f", exampleAs(theirs).toString()).exit()).isZero();
        Path mine = Files.createDirectories(temp.resolve("mine"));
        Files.writeString(mine.resolve("mine.yaml"), ("domain: " + uniqueId("cli") + "\nrules:\n  - id: " + theirs + ".login\n    match:\n"
                + "      route: /x\n    algorithm: sliding_log\n    limit: 5\n    window_s: 60\n"), StandardCharsets.UTF_8);

        Run diff = cli(TestTokens.token("bob", TestTokens.READ), "diff", "-f", mine.toString());

        assertThat(diff.exit()).as(diff.toString()).isEqualTo(1);
        assertThat(diff.out()).contains("422 invalid_config", "is a rule of domain " + theirs);
    }
}
