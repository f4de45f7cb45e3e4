package dev.tollgate.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The command line's arguments, exit codes and output, run in-process with captured streams and no service. */
class TollgateTest {

    private static final Path EXAMPLE = Path.of("..", "examples", "rules-as-code", "rules");
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);

    @TempDir
    Path temp;

    private record Run(int exit, String out, String err) {
    }

    private static Run run(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Tollgate.commandLine(env::get, CLOCK).setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    private static Run run(String... args) {
        return run(Map.of(), args);
    }

    @Test
    void validatesTheExampleDirectory() {
        Run run = run("validate", "-f", EXAMPLE.toString());

        assertThat(run.exit()).as(run.toString()).isZero();
        assertThat(run.out()).contains("2 files valid");
    }

    @Test
    void listsEveryProblemWithItsFileAndField() throws IOException {
        Files.writeString(temp.resolve("a.yaml"), Files.readString(EXAMPLE.resolve("public-api.yaml"))
                .replace("    burst: 200\n", "    burst: 0\n").replace("    window_s: 60\n", "    window_s: sixty\n"));
        Files.writeString(temp.resolve("b.json"), "{\"domain\": \"b\", \"rules\": 3}");
        Files.writeString(temp.resolve("notes.txt"), "not a domain file");

        Run run = run("validate", "-f", temp.toString());

        assertThat(run.exit()).isEqualTo(ExitCodes.REFUSED);
        assertThat(run.out()).contains(temp.resolve("a.yaml") + ": rules[0].burst: ")
                .contains(temp.resolve("a.yaml") + ": rules[2].window_s: must be a whole number")
                .contains(temp.resolve("b.json") + ": rules: must be a list")
                .contains("2 of 2 files invalid")
                .doesNotContain("notes.txt");
    }

    @Test
    void refusesTwoFilesOfOneDomain() throws IOException {
        Files.writeString(temp.resolve("one.yaml"), "domain: same\n");
        Files.writeString(temp.resolve("two.yml"), "domain: same\n");

        Run run = run("validate", "-f", temp.toString());

        assertThat(run.exit()).isEqualTo(ExitCodes.REFUSED);
        assertThat(run.out()).contains("two.yml: domain: is same, the domain of " + temp.resolve("one.yaml") + " too");
    }

    @Test
    void usageErrorsExitTwo() {
        assertThat(run("validate").exit()).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(run("validate", "-f", temp.resolve("missing").toString()).err()).contains("is neither a file nor a directory");
        assertThat(run("validate", "-f", temp.toString()).err()).contains("holds no domain file");
        assertThat(run("frobnicate").exit()).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(run().exit()).isEqualTo(ExitCodes.UNAVAILABLE);
        Run noToken = run("apply", "-f", EXAMPLE.toString(), "--url", "http://127.0.0.1:1");
        assertThat(noToken.exit()).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(noToken.err()).contains("no token: give --token or set TOLLGATE_TOKEN");
        assertThat(run("diff", "-f", EXAMPLE.toString()).err()).contains("no URL");
        assertThat(run("diff", "-f", EXAMPLE.toString(), "--url", "ftp://host/").err()).contains("must be an http or https URL");
        assertThat(run("export", "--domain", "../etc", "--url", "http://127.0.0.1:1").err()).contains("cannot be a file name");
        assertThat(run("--help").exit()).isZero();
        assertThat(run("--help").out()).contains("Exit codes:").contains("validate").contains("export");
    }

    @Test
    void anUnreachableServiceExitsTwoWithoutPrintingTheToken() throws IOException {
        int closed;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = socket.getLocalPort();
        }
        String token = "s3cret-token-value";

        Run run = run(Map.of("TOLLGATE_TOKEN", token), "apply", "-f", EXAMPLE.toString(), "--url", "http://127.0.0.1:" + closed);

        assertThat(run.exit()).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(run.err()).contains("cannot connect to rules-service at http://127.0.0.1:" + closed);
        assertThat(run.out() + run.err()).doesNotContain(token);
        Run badToken = run(Map.of("TOLLGATE_TOKEN", "has space " + token), "diff", "-f", EXAMPLE.toString(), "--url", "http://127.0.0.1:1");
        assertThat(badToken.err()).contains("the token has spaces");
        assertThat(badToken.out() + badToken.err()).doesNotContain(token);
    }

    @Test
    void aServiceThatNeverAnswersTimesOut() throws IOException {
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            long start = System.nanoTime();

            Run run = run("diff", "-f", EXAMPLE.toString(), "--url", "http://127.0.0.1:" + silent.getLocalPort(), "--timeout", "1");

            assertThat(run.exit()).isEqualTo(ExitCodes.UNAVAILABLE);
            assertThat(run.err()).contains("did not answer in time");
            assertThat(System.nanoTime() - start).isLessThan(15_000_000_000L);
        }
    }

    @Test
    void printsAReportFieldByField() {
        Map<String, Object> report = Map.of("domain", "public-api", "dry_run", true, "changed", true,
                "summary", Map.of("created", 1, "updated", 1, "deleted", 0, "unchanged", 5),
                "changes", List.of(
                        Map.of("kind", "rule", "id", "public-api.growth-global", "outcome", "updated",
                                "fields", List.of(Map.of("field", "burst", "before", "200", "after", "300"), Map.of("field", "mode", "after", "shadow"))),
                        Map.of("kind", "override", "account_id", "acct_x", "rule_id", "public-api.login", "outcome", "created"),
                        Map.of("kind", "rule", "id", "public-api.login", "outcome", "unchanged")));

        assertThat(ReportText.report(report)).containsExactly(
                "domain public-api: would change: 1 created, 1 updated, 5 unchanged",
                "  ~ rule public-api.growth-global",
                "      burst: 200 -> 300",
                "      mode: (none) -> shadow",
                "  + override for account acct_x on rule public-api.login (created)");
    }

    @Test
    void printsAProblemWithItsErrors() {
        byte[] body = """
                {"type":"about:blank","title":"Unprocessable Entity","status":422,"detail":"The file is invalid.","code":"invalid_config",
                 "errors":[{"field":"rules[0].burst","message":"must be at least 1"},{"field":"","message":"is empty"}]}
                """.getBytes();

        assertThat(ReportText.problem(new RulesApi.Answer(422, null, body))).containsExactly(
                "HTTP 422 invalid_config: The file is invalid.",
                "  rules[0].burst: must be at least 1",
                "  is empty");
        assertThat(ReportText.problem(new RulesApi.Answer(502, null, "<html>bad gateway</html>".getBytes())))
                .containsExactly("HTTP 502: <html>bad gateway</html>");
        assertThat(new RulesApi.Answer(409, null, body).exitCode()).isEqualTo(ExitCodes.REFUSED);
        assertThat(new RulesApi.Answer(401, null, body).exitCode()).isEqualTo(ExitCodes.UNAVAILABLE);
    }
}
