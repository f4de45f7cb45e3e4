package dev.tollgate.rules;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static dev.tollgate.rules.RuleApiIT.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code POST /v1/config:apply} and {@code GET /v1/config:export} on a real store: a domain becomes what its file
 * says in one transaction, through the same history as every other write; the export is the canonical file byte for
 * byte; a dry run, a refusal and a lost race leave the store as it was. Each test works in a domain of its own, named
 * into the checked-in example file, so that it never touches another test's rows.
 */
class ConfigApplyIT extends ServiceTestBase {

    private static final String APPLY = "/v1/config:apply";
    private static final String EXAMPLE_DOMAIN = "public-api";

    /** The example directory's file, in the canonical form, for {@code domain}. */
    private static String example(String domain) {
        try {
            return Files.readString(Path.of("..", "examples", "rules-as-code", "rules", EXAMPLE_DOMAIN + ".yaml"))
                    .replace(EXAMPLE_DOMAIN, domain);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void appliesAFileToAnEmptyDomainAsOneRevisionAndExportsItBackByteForByte() {
        String domain = uniqueId("code");
        String file = example(domain);
        long revision = storeRevision();

        Api.Response applied = apply(file, "?reason=ci%20run%2042");

        assertThat(applied.status).as(applied.toString()).isEqualTo(200);
        JsonNode report = applied.json();
        assertThat(report.get("changed").asBoolean()).isTrue();
        assertThat(report.get("dry_run").asBoolean()).isFalse();
        assertThat(report.get("summary").get("created").asInt()).isEqualTo(4 + 1 + 2);
        assertThat(report.get("changes").findValuesAsString("outcome")).containsOnly("created");
        assertThat(storeRevision()).as("one transaction, one revision").isEqualTo(revision + 1);

        Api.Response exported = api.get("/v1/config:export?domain=" + domain);
        assertThat(exported.status).as(exported.toString()).isEqualTo(200);
        assertThat(exported.header("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("application/yaml"));
        assertThat(exported.body).isEqualTo(file);
        assertThat(exported.etag()).isEqualTo("\"" + report.get("digest_after").asString() + "\"");
        Api.Response json = api.request("GET", "/v1/config:export?domain=" + domain).header("Accept", "application/json").send();
        assertThat(json.header("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
        assertThat(json.json().get("rules")).hasSize(4);
        assertThat(json.etag()).isEqualTo(exported.etag());

        JsonNode history = api.get("/v1/rules/" + domain + ".login/versions").json();
        assertThat(history).hasSize(1);
        assertThat(history.get(0).get("changed_by").asString()).isEqualTo("alice");
        assertThat(history.get(0).get("reason").asString()).isEqualTo("ci run 42");
        assertThat(api.get("/v1/descriptors/" + domain).json().get("descriptors")).hasSize(3);
        assertThat(api.get("/v1/overrides?rule_id=" + domain + ".growth-global").json().get(0).get("rate_per_s").asInt()).isEqualTo(500);
    }

    @Test
    void aCountAfterRuleRoundTripsThroughApplyAndExportAndItsChangeBackToInlineIsADiff() {
        String domain = uniqueId("code");
        String file = "domain: " + domain + "\n"
                + "rules:\n"
                + "  - id: " + domain + ".flood-ip\n"
                + "    match:\n"
                + "      route: /\n"
                + "    identity: ip\n"
                + "    algorithm: token_bucket\n"
                + "    rate_per_s: 50\n"
                + "    burst: 100\n"
                + "    counting: after\n";

        assertThat(apply(file, "").status).isEqualTo(200);

        assertThat(api.get("/v1/config:export?domain=" + domain).body).isEqualTo(file);
        assertThat(api.get("/v1/rules/" + domain + ".flood-ip").json().get("count_after").get("overshoot_bound_per_pod").asLong())
                .isEqualTo(10);
        assertThat(apply(file, "").json().get("changed").asBoolean()).as("applied again: nothing to change").isFalse();
        JsonNode inline = apply(file.replace("    counting: after\n", ""), "").json();
        assertThat(inline.get("changed").asBoolean()).isTrue();
        assertThat(api.get("/v1/rules/" + domain + ".flood-ip").json().has("counting")).isFalse();
    }

    @Test
    void reapplyingTheFileOrItsJsonExportChangesNothing() {
        String domain = uniqueId("code");
        String file = example(domain);
        apply(file, "");
        String json = api.request("GET", "/v1/config:export?domain=" + domain).header("Accept", "application/json").send().body;
        long revision = storeRevision();

        Api.Response again = apply(file, "");
        Api.Response fromJson = api.request("POST", APPLY).body(json, "application/json").send();

        for (Api.Response response : List.of(again, fromJson)) {
            assertThat(response.status).as(response.toString()).isEqualTo(200);
            assertThat(response.json().get("changed").asBoolean()).isFalse();
            assertThat(response.json().get("changes").findValuesAsString("outcome")).hasSize(7).containsOnly("unchanged");
            assertThat(response.json().get("digest_before").asString()).isEqualTo(response.json().get("digest_after").asString());
        }
        assertThat(storeRevision()).isEqualTo(revision);
    }

    /**
     * A file's expiry finer than the microsecond PostgreSQL keeps (what a script's clock writes) is kept to the
     * microsecond: applied once, it re-applies as no change, where comparing it to the stored value at its nanoseconds
     * would show a change on every run.
     */
    @Test
    void anExpiryFinerThanAMicrosecondAppliesOnceAndThenChangesNothing() {
        String domain = uniqueId("code");
        String file = example(domain).replace("\"2099-01-01T00:00:00Z\"", "\"2099-01-01T00:00:00.123456789Z\"");
        assertThat(apply(file, "").status).isEqualTo(200);
        long revision = storeRevision();

        Api.Response again = apply(file, "");

        assertThat(again.status).as(again.toString()).isEqualTo(200);
        assertThat(again.json().get("changed").asBoolean()).isFalse();
        assertThat(storeRevision()).isEqualTo(revision);
        assertThat(api.get("/v1/overrides?rule_id=" + domain + ".growth-global").json().get(0).get("expires_at").asString())
                .isEqualTo("2099-01-01T00:00:00.123456Z");
    }

    @Test
    void aDryRunAnswersTheDiffFieldByFieldAndWritesNothing() {
        String domain = uniqueId("code");
        apply(example(domain), "");
        String changed = example(domain)
                .replace("    rate_per_s: 100\n    burst: 200\n", "    rate_per_s: 100\n    burst: 300\n")
                .replace("  - key: path\n    value: \"/files/*\"\n    unlimited: true\n", "")
                .replace("  - account_id: acct_partner\n    rule_id: " + domain + ".labels-route\n    rate_per_s: 50\n    burst: 100\n", "");
        long revision = storeRevision();
        long history = historyRows(domain);
        String exportBefore = api.get("/v1/config:export?domain=" + domain).body;

        Api.Response dryRun = apply(changed, "?dry_run=true");

        assertThat(dryRun.status).as(dryRun.toString()).isEqualTo(200);
        JsonNode report = dryRun.json();
        assertThat(report.get("dry_run").asBoolean()).isTrue();
        assertThat(report.get("summary").get("updated").asInt()).isEqualTo(2);
        assertThat(report.get("summary").get("deleted").asInt()).isEqualTo(1);
        assertThat(report.get("summary").get("unchanged").asInt()).isEqualTo(4);
        JsonNode growth = change(report, "rule", domain + ".growth-global");
        assertThat(growth.get("outcome").asString()).isEqualTo("updated");
        assertThat(growth.get("fields")).hasSize(1);
        assertThat(growth.get("fields").get(0).get("field").asString()).isEqualTo("burst");
        assertThat(growth.get("fields").get(0).get("before").asString()).isEqualTo("200");
        assertThat(growth.get("fields").get(0).get("after").asString()).isEqualTo("300");
        assertThat(change(report, "descriptors", domain).get("fields").findValuesAsString("field")).contains("descriptors[2].key");
        assertThat(report.get("digest_after").asString()).isNotEqualTo(report.get("digest_before").asString());

        assertThat(storeRevision()).isEqualTo(revision);
        assertThat(historyRows(domain)).isEqualTo(history);
        assertThat(api.get("/v1/config:export?domain=" + domain).body).isEqualTo(exportBefore);
        assertThat(api.get("/v1/rules/" + domain + ".growth-global").json().get("burst").asInt()).isEqualTo(200);

        Api.Response applied = apply(changed, "");
        assertThat(applied.json().get("changes")).isEqualTo(report.get("changes"));
        assertThat(applied.json().get("digest_after")).isEqualTo(report.get("digest_after"));
        assertThat(api.get("/v1/config:export?domain=" + domain).body).isEqualTo(changed);
    }

    @Test
    void aReaderDiffsWhatADryRunAnswersWithoutTheAdminScopeAndWithoutALock() {
        String domain = uniqueId("code");
        apply(example(domain), "");
        String changed = example(domain).replace("    limit: 5\n", "    limit: 9\n");
        long revision = storeRevision();
        Api reader = api.as(TestTokens.token("bob", TestTokens.READ));

        Api.Response diff = reader.request("POST", "/v1/config:diff").body(changed, "application/yaml").send();
        Api.Response dryRun = apply(changed, "?dry_run=true");

        assertThat(diff.status).as(diff.toString()).isEqualTo(200);
        assertThat(diff.json().get("changes")).isEqualTo(dryRun.json().get("changes"));
        assertThat(diff.json().get("digest_before")).isEqualTo(dryRun.json().get("digest_before"));
        assertThat(diff.json().get("digest_after")).isEqualTo(dryRun.json().get("digest_after"));
        assertThat(storeRevision()).isEqualTo(revision);
        // only that one path reads: the apply beside it, in any spelling, stays the admin's
        assertProblem(reader.request("POST", APPLY).body(changed, "application/yaml").send(), 403, "forbidden");
        assertThat(reader.request("POST", "/v1/config:diff/").body(changed, "application/yaml").send().status).isIn(403, 404);
        assertProblem(reader.request("POST", "/v1/config:diff").body("domain: " + domain + "\nrules: 3\n", "application/yaml").send(),
                422, "invalid_config");
    }

    @Test
    void dropsAMappedRuleWithItsMappingAndOverridesInOneApplyWhateverTheOrder() {
        String domain = uniqueId("code");
        apply(example(domain), "");
        String onlyLogin = """
                domain: DOMAIN
                rules:
                  - id: DOMAIN.login
                    match:
                      route: /v1/login
                    identity: ip
                    algorithm: sliding_log
                    limit: 5
                    window_s: 60
                    fail_mode: closed
                """.replace("DOMAIN", domain);
        long revision = storeRevision();

        Api.Response applied = apply(onlyLogin, "?reason=shrink");

        assertThat(applied.status).as(applied.toString()).isEqualTo(200);
        assertThat(applied.json().get("summary").get("deleted").asInt()).isEqualTo(3 + 1 + 2);
        assertThat(storeRevision()).isEqualTo(revision + 1);
        assertProblem(api.get("/v1/descriptors/" + domain), 404, "not_found");
        assertProblem(api.get("/v1/rules/" + domain + ".growth-global"), 404, "not_found");
        assertThat(api.get("/v1/config:export?domain=" + domain).body).isEqualTo(onlyLogin);
        JsonNode history = api.get("/v1/rules/" + domain + ".growth-global/versions").json();
        List<String> changes = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        history.forEach(entry -> {
            changes.add(entry.get("entity").asString() + " " + entry.get("change").asString());
            reasons.add(entry.get("reason").asString());
        });
        assertThat(changes).containsExactly("rule create", "override create", "override delete", "rule delete");
        assertThat(reasons).endsWith("shrink", "shrink");

        Api.Response emptied = apply("domain: " + domain + "\n", "");
        assertThat(emptied.json().get("summary").get("deleted").asInt()).isEqualTo(1);
        assertThat(api.get("/v1/rules?domain=" + domain).json()).isEmpty();
    }

    @Test
    void changesARuleAndItsOverrideTogetherWhicheverMustGoFirst() {
        String domain = uniqueId("code");
        String base = """
                domain: DOMAIN
                rules:
                  - id: DOMAIN.r
                    match:
                      plan: p
                    algorithm: token_bucket
                    rate_per_s: 10
                    burst: 20
                    max_cost: COST
                overrides:
                  - account_id: a
                    rule_id: DOMAIN.r
                    rate_per_s: 10
                    burst: BURST
                """.replace("DOMAIN", domain);
        assertThat(apply(base.replace("COST", "1").replace("BURST", "5"), "").status).isEqualTo(200);

        // the new max_cost does not fit the old override, the new override fits the old rule: the override goes first
        Api.Response up = apply(base.replace("COST", "10").replace("BURST", "20"), "");
        // and back: the new override does not fit the old rule, the old override fits the new rule: the rule goes first
        Api.Response down = apply(base.replace("COST", "1").replace("BURST", "5"), "");

        assertThat(up.status).as(up.toString()).isEqualTo(200);
        assertThat(down.status).as(down.toString()).isEqualTo(200);
        assertThat(down.json().get("summary").get("updated").asInt()).isEqualTo(2);
    }

    @Test
    void anInvalidFileIs422ListingEveryProblemAndWritesNothing() {
        String domain = uniqueId("code");
        String file = example(domain)
                .replace("    burst: 200\n", "    burst: 0\n")
                .replace("    window_s: 60\n", "    window_s: sixty\n")
                .replace("rule: " + domain + ".login", "rule: " + domain + ".nowhere")
                .replace("    burst: 100\n", "    burst: 100\n    colour: blue\n");
        long revision = storeRevision();

        Api.Response refused = apply(file, "");

        assertProblem(refused, 422, "invalid_config");
        assertThat(refused.json().get("errors").findValuesAsString("field"))
                .contains("rules[0].burst", "rules[2].window_s", "descriptors[1].rule", "overrides[1].colour");
        assertThat(storeRevision()).isEqualTo(revision);
        assertThat(api.get("/v1/rules?domain=" + domain).json()).isEmpty();
        assertProblem(apply(file, "?dry_run=true"), 422, "invalid_config");
    }

    @Test
    void aRuleOfAnotherDomainIsRefusedRatherThanMovedHere() {
        String mine = uniqueId("code");
        String theirs = uniqueId("code");
        apply(example(theirs), "");

        Api.Response refused = apply("domain: " + mine + "\nrules:\n  - id: " + theirs + ".login\n    match:\n      route: /x\n"
                + "    algorithm: sliding_log\n    limit: 5\n    window_s: 60\n", "");

        assertProblem(refused, 422, "invalid_config");
        assertThat(refused.json().get("errors").get(0).get("message").asString()).contains("is a rule of domain " + theirs);
        assertThat(api.get("/v1/rules/" + theirs + ".login").json().get("domain").asString()).isEqualTo(theirs);
    }

    @Test
    void ifMatchWithTheDigestRefusesAnApplyOverADomainChangedSince() {
        String domain = uniqueId("code");
        apply(example(domain), "");
        String digest = api.get("/v1/config:export?domain=" + domain).etag();
        Api.Response login = api.get("/v1/rules/" + domain + ".login");
        // someone changes a rule by hand after the CI job read the domain
        Api.Response byHand = api.request("PUT", "/v1/rules/" + domain + ".login").ifMatch(login.json().get("version").asLong())
                .body(Api.json("{'domain':'" + domain + "','match':{'route':'/v1/login'},'identity':'ip','algorithm':'sliding_log',"
                        + "'limit':6,'window_s':60,'fail_mode':'closed'}")).send();
        assertThat(byHand.status).as(byHand.toString()).isEqualTo(200);

        Api.Response stale = api.request("POST", APPLY).header("If-Match", digest).body(example(domain), "application/yaml").send();

        assertProblem(stale, 409, "version_conflict");
        assertThat(api.get("/v1/rules/" + domain + ".login").json().get("limit").asInt()).isEqualTo(6);
        String current = api.get("/v1/config:export?domain=" + domain).etag();
        Api.Response fresh = api.request("POST", APPLY).header("If-Match", current).body(example(domain), "application/yaml").send();
        assertThat(fresh.status).as(fresh.toString()).isEqualTo(200);
        assertProblem(api.request("POST", APPLY).header("If-Match", "\"3\"").body(example(domain), "application/yaml").send(),
                400, "bad_request");
        assertProblem(api.request("POST", APPLY).header("If-Match", "*").body(example(domain), "application/yaml").send(),
                428, "precondition_required");
    }

    @Test
    void ofConcurrentAppliesFromOneDigestExactlyOneLandsAndWithoutItEachLandsWhole() {
        String domain = uniqueId("code");
        apply(example(domain), "");
        String digest = api.get("/v1/config:export?domain=" + domain).etag();
        List<String> files = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            files.add(example(domain).replace("    burst: 200\n", "    burst: " + (300 + i) + "\n"));
        }

        List<CompletableFuture<Api.Response>> guarded = new ArrayList<>();
        for (String file : files) {
            guarded.add(api.request("POST", APPLY).header("If-Match", digest).body(file, "application/yaml").sendAsync());
        }
        List<Integer> statuses = guarded.stream().map(CompletableFuture::join).map(response -> response.status).toList();

        assertThat(statuses).containsOnly(200, 409);
        assertThat(statuses).filteredOn(status -> status == 200).hasSize(1);

        List<CompletableFuture<Api.Response>> unguarded = new ArrayList<>();
        for (String file : files) {
            unguarded.add(api.request("POST", APPLY).body(file.replace("    limit: 5\n", "    limit: 7\n"), "application/yaml").sendAsync());
        }
        assertThat(unguarded.stream().map(CompletableFuture::join).map(response -> response.status)).containsOnly(200);
        String exported = api.get("/v1/config:export?domain=" + domain).body;
        assertThat(files.stream().map(file -> file.replace("    limit: 5\n", "    limit: 7\n"))).contains(exported);
    }

    @Test
    void applyingNeedsTheAdminScopeAndExportingTheReadScope() {
        String domain = uniqueId("code");

        assertProblem(api.as(null).request("POST", APPLY).body(example(domain), "application/yaml").send(), 401, "unauthorized");
        Api.Response reader = api.as(TestTokens.token("bob", TestTokens.READ)).request("POST", APPLY + "?dry_run=true")
                .body(example(domain), "application/yaml").send();
        assertProblem(reader, 403, "forbidden");
        assertThat(reader.json().get("required_scope").asString()).isEqualTo(TestTokens.ADMIN);
        assertProblem(api.as(null).get("/v1/config:export?domain=" + domain), 401, "unauthorized");
        assertThat(api.as(TestTokens.token("bob", TestTokens.READ)).get("/v1/config:export?domain=" + domain).body)
                .isEqualTo("domain: " + domain + "\n");
        assertThat(api.get("/v1/rules?domain=" + domain).json()).isEmpty();
    }

    @Test
    void whatCannotBeReadOrWouldExpandIsRefusedNeverA500() {
        String domain = uniqueId("code");
        String bomb = "domain: " + domain + "\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                + "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n";

        Api.Response expanded = apply(bomb, "");
        assertProblem(expanded, 422, "invalid_config");
        assertThat(expanded.json().get("errors").findValuesAsString("message")).anyMatch(message -> message.contains("alias"));
        assertProblem(apply("domain: " + domain + "\nrules: " + "[".repeat(500) + "]".repeat(500) + "\n", ""), 400, "bad_request");
        assertProblem(apply("domain: [" + domain + "\n", ""), 400, "bad_request");
        assertProblem(api.request("POST", APPLY).body("{\"domain\": \"" + domain + "\",}", "application/json").send(), 400, "bad_request");
        assertProblem(apply("", ""), 422, "invalid_config");
        assertProblem(api.request("POST", APPLY).body(example(domain), "application/xml").send(), 415, "unsupported_media_type");
        assertProblem(api.request("POST", APPLY).body(example(domain), "text/plain").send(), 415, "unsupported_media_type");
        assertProblem(api.request("GET", "/v1/config:export?domain=" + domain).header("Accept", "text/html").send(), 406, "not_acceptable");
        assertProblem(api.get("/v1/config:export"), 400, "bad_request");
        assertThat(api.get("/v1/rules?domain=" + domain).json()).isEmpty();
    }

    @Test
    void takesAFileLargerThanTheOtherEndpointsBodiesUpToItsOwnLimit() {
        String domain = uniqueId("code");
        String padded = example(domain) + "# padding\n".repeat(20_000);

        assertThat(apply(padded, "?dry_run=true").status).isEqualTo(200);
        assertProblem(apply(example(domain) + "# padding\n".repeat(110_000), ""), 413, "payload_too_large");
        assertProblem(api.request("PUT", "/v1/rules/" + domain + ".x").body(tokenBucket(domain, 1, 1) + " ".repeat(70_000)).send(),
                413, "payload_too_large");
    }

    private Api.Response apply(String yaml, String query) {
        return api.request("POST", APPLY + query).body(yaml, "application/yaml").send();
    }

    private static JsonNode change(JsonNode report, String kind, String id) {
        for (JsonNode change : report.get("changes")) {
            if (change.get("kind").asString().equals(kind) && id.equals(change.path("id").asString(null))) {
                return change;
            }
        }
        throw new AssertionError("no " + kind + " " + id + " in " + report);
    }

    private long historyRows(String domain) {
        return jdbc.sql("SELECT count(*) FROM rule_history WHERE rule_id LIKE ?").param(domain + "%").query(Long.class).single();
    }
}
