package dev.tollgate.rules;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static dev.tollgate.rules.RuleApiIT.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * {@code POST /v1/imports/envoy-ratelimit}: an envoyproxy/ratelimit configuration file, as its users write it,
 * becomes rules and a descriptor mapping readable through the rules and descriptors APIs, in one transaction;
 * a dry run, a second import of the same file and every refusal leave the store as it was.
 */
class EnvoyImportIT extends ServiceTestBase {

    private static final String IMPORT = "/v1/imports/envoy-ratelimit";

    /** envoyproxy/ratelimit's README examples in one file: nested descriptors, a wildcard, shadow mode, unlimited with replaces. */
    private static String readme(String domain) {
        return """
                domain: DOMAIN
                descriptors:
                  # only 5 requests a minute for the remote address 10.0.0.1
                  - key: remote_address
                    value: 10.0.0.1
                    rate_limit:
                      unit: minute
                      requests_per_unit: 5
                  - key: database
                    value: users
                    rate_limit:
                      unit: second
                      requests_per_unit: 500
                  - key: database
                    value: default
                    shadow_mode: true
                    rate_limit:
                      name: db-default
                      unit: MINUTE
                      requests_per_unit: 50
                  - key: path
                    value: /files/*
                    rate_limit:
                      unit: hour
                      requests_per_unit: 5
                  - key: source_cluster
                    value: proxy
                    descriptors:
                      - key: destination_cluster
                        value: bar
                        rate_limit:
                          unit: minute
                          requests_per_unit: 10
                  - key: user
                    rate_limit:
                      unit: day
                      requests_per_unit: 1000
                    descriptors:
                      - key: premium
                        rate_limit:
                          unlimited: true
                          replaces:
                            - name: db-default
                """.replace("DOMAIN", domain);
    }

    @Test
    void importsAReadmeFileAsRulesAndAMappingReadableThroughTheirApis() {
        String domain = uniqueId("envoy");
        long before = storeRevision();

        Api.Response imported = post(IMPORT, readme(domain));

        assertThat(imported.status).as(imported.toString()).isEqualTo(201);
        assertThat(imported.header("Location")).hasValue("/v1/descriptors/" + domain);
        JsonNode report = imported.json();
        assertThat(report.get("domain").asString()).isEqualTo(domain);
        assertThat(report.get("dry_run").asBoolean()).isFalse();
        assertThat(report.get("rules").findValuesAsString("outcome")).hasSize(6).containsOnly("created");
        assertThat(report.get("descriptors").get("outcome").asString()).isEqualTo("created");
        assertThat(report.get("descriptors").get("version").asLong()).isEqualTo(1);
        assertThat(report.get("not_mapped")).isEmpty();
        assertThat(storeRevision()).as("one transaction, one revision").isEqualTo(before + 1);

        JsonNode users = api.get("/v1/rules/" + domain + ".database_users").json();
        assertThat(users.get("algorithm").asString()).isEqualTo("fixed_window");
        assertThat(users.get("limit").asInt()).isEqualTo(500);
        assertThat(users.get("window_s").asInt()).isEqualTo(1);
        assertThat(users.get("domain").asString()).isEqualTo(domain);
        JsonNode shadowed = api.get("/v1/rules/" + domain + ".database_default").json();
        assertThat(shadowed.get("mode").asString()).isEqualTo("shadow");
        assertThat(shadowed.get("window_s").asInt()).isEqualTo(60);
        assertThat(api.get("/v1/rules/" + domain + ".source_cluster_proxy.destination_cluster_bar").json().get("limit").asInt()).isEqualTo(10);
        assertThat(api.get("/v1/rules/" + domain + ".remote_address_10.0.0.1").status).isEqualTo(200);

        Api.Response mapping = api.get("/v1/descriptors/" + domain);
        assertThat(mapping.etag()).isEqualTo("\"1\"");
        JsonNode nodes = mapping.json().get("descriptors");
        assertThat(nodes).hasSize(6);
        assertThat(nodes.get(1).get("rule").asString()).isEqualTo(domain + ".database_users");
        assertThat(nodes.get(2).get("name").asString()).isEqualTo("db-default");
        JsonNode wildcard = nodes.get(3);
        assertThat(wildcard.get("value").asString()).isEqualTo("/files/*");
        assertThat(api.get("/v1/rules/" + wildcard.get("rule").asString()).json().get("window_s").asInt()).isEqualTo(3600);
        assertThat(nodes.get(4).get("descriptors").get(0).get("rule").asString())
                .isEqualTo(domain + ".source_cluster_proxy.destination_cluster_bar");
        JsonNode premium = nodes.get(5).get("descriptors").get(0);
        assertThat(premium.get("unlimited").asBoolean()).isTrue();
        assertThat(premium.get("replaces").get(0).asString()).isEqualTo("db-default");

        JsonNode history = api.get("/v1/rules/" + domain + ".database_users/versions").json();
        assertThat(history).hasSize(1);
        assertThat(history.get(0).get("changed_by").asString()).isEqualTo("alice");
        assertThat(history.get(0).get("reason").asString()).isEqualTo("imported from envoyproxy/ratelimit configuration");
        assertThat(shippedDomains()).as("the watch feed ships the imported domain").contains(domain);
    }

    @Test
    void aDryRunAnswersTheSameAndStoresNothing() {
        String domain = uniqueId("envoy");
        long before = storeRevision();

        Api.Response dryRun = post(IMPORT + "?dry_run=true", readme(domain));

        assertThat(dryRun.status).as(dryRun.toString()).isEqualTo(200);
        JsonNode report = dryRun.json();
        assertThat(report.get("dry_run").asBoolean()).isTrue();
        assertThat(report.get("rules").findValuesAsString("outcome")).hasSize(6).containsOnly("created");
        assertThat(report.get("rules").get(1).get("rule").get("limit").asInt()).isEqualTo(500);
        assertThat(report.get("descriptors").get("outcome").asString()).isEqualTo("created");
        assertThat(report.get("descriptors").get("descriptors")).hasSize(6);

        assertThat(storeRevision()).isEqualTo(before);
        assertProblem(api.get("/v1/rules/" + domain + ".database_users"), 404, "not_found");
        assertProblem(api.get("/v1/descriptors/" + domain), 404, "not_found");
        assertThat(api.get("/v1/rules?domain=" + domain).json()).isEmpty();
        assertThat(jdbc.sql("SELECT count(*) FROM rule_history WHERE rule_id LIKE ?").param(domain + "%").query(Long.class).single())
                .isZero();
        assertThat(shippedDomains()).doesNotContain(domain);

        Api.Response imported = post(IMPORT, readme(domain));
        assertThat(imported.status).as(imported.toString()).isEqualTo(201);
        assertThat(imported.json().get("rules")).isEqualTo(report.get("rules"));
    }

    @Test
    void importingTheSameFileAgainChangesNothing() {
        String domain = uniqueId("envoy");
        assertThat(post(IMPORT, readme(domain)).status).isEqualTo(201);
        long revision = storeRevision();

        Api.Response again = post(IMPORT, readme(domain));
        Api.Response dryRun = post(IMPORT + "?dry_run=true", readme(domain));

        assertThat(again.status).as(again.toString()).isEqualTo(200);
        assertThat(again.json().get("rules").findValuesAsString("outcome")).hasSize(6).containsOnly("unchanged");
        assertThat(again.json().get("descriptors").get("outcome").asString()).isEqualTo("unchanged");
        assertThat(again.json().get("descriptors").get("version").asLong()).isEqualTo(1);
        assertThat(dryRun.json().get("rules").findValuesAsString("outcome")).containsOnly("unchanged");
        assertThat(storeRevision()).isEqualTo(revision);
        assertThat(api.get("/v1/descriptors/" + domain).etag()).isEqualTo("\"1\"");
        assertThat(api.get("/v1/rules/" + domain + ".database_users/versions").json()).hasSize(1);
    }

    @Test
    void aRuleStoredWithOtherValuesRefusesTheWholeImport() {
        String domain = uniqueId("envoy");
        post(IMPORT, readme(domain));
        String users = domain + ".database_users";
        JsonNode rule = api.get("/v1/rules/" + users).json();
        String raised = rule.toString().replace("\"limit\":500", "\"limit\":900");
        assertThat(api.request("PUT", "/v1/rules/" + users).ifMatch(1).body(raised).send().status).isEqualTo(200);
        long revision = storeRevision();
        // the file also gains a descriptor: refused whole, it must not be created either
        String grown = readme(domain) + """
                  - key: tenant
                    rate_limit:
                      unit: second
                      requests_per_unit: 3
                """;

        Api.Response refused = post(IMPORT, grown);

        assertProblem(refused, 409, "import_conflict");
        JsonNode errors = refused.json().get("errors");
        assertThat(errors.findValuesAsString("field")).containsExactly("rule " + users);
        assertThat(errors.get(0).get("message").asString()).contains("another limit", "limit is 900, the file's 500");
        assertThat(storeRevision()).isEqualTo(revision);
        assertProblem(api.get("/v1/rules/" + domain + ".tenant"), 404, "not_found");
        assertThat(api.get("/v1/rules/" + users).json().get("limit").asInt()).isEqualTo(900);
    }

    @Test
    void aRuleChangedByHandButForItsLimitIsKeptAsItIs() {
        String domain = uniqueId("envoy");
        post(IMPORT, readme(domain));
        String address = domain + ".remote_address_10.0.0.1";
        // what the file cannot say: the login limit fails closed
        String closed = api.get("/v1/rules/" + address).json().toString().replace("\"fail_mode\":\"open\"", "\"fail_mode\":\"closed\"");
        assertThat(api.request("PUT", "/v1/rules/" + address).ifMatch(1).body(closed).send().status).isEqualTo(200);
        long revision = storeRevision();

        Api.Response again = post(IMPORT, readme(domain));

        assertThat(again.status).as(again.toString()).isEqualTo(200);
        JsonNode kept = again.json().get("rules").get(0);
        assertThat(kept.get("id").asString()).isEqualTo(address);
        assertThat(kept.get("outcome").asString()).isEqualTo("kept");
        assertThat(kept.get("differences").asString()).contains("fail_mode is \"closed\", the file's \"open\"");
        assertThat(kept.get("rule").get("version").asLong()).isEqualTo(2);
        assertThat(again.json().get("rules").get(1).has("differences")).isFalse();
        assertThat(storeRevision()).isEqualTo(revision);
        assertThat(api.get("/v1/rules/" + address).json().get("fail_mode").asString()).isEqualTo("closed");
    }

    @Test
    void aChangedMappingIsReplacedOnlyWithTheVersionItWasBasedOn() {
        String domain = uniqueId("envoy");
        post(IMPORT, readme(domain));
        String grown = readme(domain) + """
                  - key: tenant
                    rate_limit:
                      unit: second
                      requests_per_unit: 3
                """;
        long revision = storeRevision();

        assertProblem(post(IMPORT, grown), 428, "precondition_required");
        assertProblem(api.request("POST", IMPORT).ifMatch(7).body(grown, "application/yaml").send(), 409, "version_conflict");
        assertThat(storeRevision()).isEqualTo(revision);
        assertProblem(api.get("/v1/rules/" + domain + ".tenant"), 404, "not_found");

        Api.Response replaced = api.request("POST", IMPORT + "?reason=tenants%20too").ifMatch(1).body(grown, "application/yaml").send();

        assertThat(replaced.status).as(replaced.toString()).isEqualTo(201);
        assertThat(replaced.json().get("descriptors").get("outcome").asString()).isEqualTo("replaced");
        assertThat(replaced.json().get("descriptors").get("version").asLong()).isEqualTo(2);
        assertThat(replaced.json().get("rules").findValuesAsString("outcome")).containsExactly(
                "unchanged", "unchanged", "unchanged", "unchanged", "unchanged", "unchanged", "created");
        assertThat(api.get("/v1/descriptors/" + domain).etag()).isEqualTo("\"2\"");
        JsonNode history = api.get("/v1/rules/" + domain + ".tenant/versions").json();
        assertThat(history.get(0).get("reason").asString()).isEqualTo("tenants too");
    }

    @Test
    void whatTollgateDoesNotDoIsListedAsNotMapped() {
        String domain = uniqueId("envoy");
        String file = """
                domain: DOMAIN
                descriptors:
                  - key: tenant
                    quota_mode: true
                    rate_limit:
                      unit: hour
                      requests_per_unit: 100
                """.replace("DOMAIN", domain);

        Api.Response imported = post(IMPORT, file);

        assertThat(imported.status).as(imported.toString()).isEqualTo(201);
        JsonNode notMapped = imported.json().get("not_mapped");
        assertThat(notMapped.findValuesAsString("field")).containsExactly("descriptors[0].quota_mode");
        assertThat(notMapped.get(0).get("message").asString()).startsWith("not mapped");
        assertThat(api.get("/v1/rules/" + domain + ".tenant").json().get("limit").asInt()).isEqualTo(100);
    }

    static Stream<Arguments> refusedFiles() {
        return Stream.of(
                arguments("fields envoyproxy/ratelimit refuses", """
                        domain: DOMAIN
                        descripters: []
                        descriptors:
                          - key: a
                            rate_limit: {unit: fortnight, requests_per_unit: 1}
                          - key: b
                            rate_limit: {unit: second, requests_per_unit: 0}
                        """, List.of("descripters", "descriptors[0].rate_limit.unit", "descriptors[1].rate_limit.requests_per_unit")),
                arguments("not YAML", "domain: DOMAIN\ndescriptors: [ {key: a\n", List.of("")),
                arguments("a tab where YAML wants spaces", "domain: DOMAIN\ndescriptors:\n\t- key: a\n", List.of("")),
                arguments("a list, not a map", "- domain: DOMAIN\n", List.of("")),
                arguments("a bare string", "hello\n", List.of("")),
                arguments("no domain", "descriptors: []\n", List.of("domain")),
                arguments("a key twice", "domain: DOMAIN\ndomain: other\n", List.of("domain")),
                arguments("an alias", """
                        domain: DOMAIN
                        descriptors:
                          - key: a
                            rate_limit: &limit {unit: second, requests_per_unit: 1}
                          - key: b
                            rate_limit: *limit
                        """, List.of("descriptors[1].rate_limit")),
                arguments("two documents", "domain: DOMAIN\n---\ndomain: other\n", List.of("")),
                arguments("only a comment", "# nothing here\n", List.of("")),
                arguments("nesting past the bound", "domain: DOMAIN\ndescriptors: " + "[".repeat(5_000) + "]".repeat(5_000) + "\n", null),
                arguments("a number beyond a long", "domain: DOMAIN\ndescriptors:\n  - key: a\n    rate_limit: {unit: second, requests_per_unit: "
                        + "18446744073709551621}\n", List.of("descriptors[0].rate_limit.requests_per_unit")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedFiles")
    void aFileThatCannotBeServedIsRefusedWith422NamingTheFieldsAndStoresNothing(String why, String file, List<String> fields) {
        String domain = uniqueId("envoy");
        long revision = storeRevision();

        Api.Response refused = post(IMPORT, file.replace("DOMAIN", domain));

        assertProblem(refused, 422, "invalid_envoy_config");
        if (fields != null) {
            assertThat(refused.json().get("errors").findValuesAsString("field")).as(refused.toString()).containsExactlyInAnyOrderElementsOf(fields);
        }
        assertThat(refused.json().get("errors").get(0).get("message").asString()).isNotBlank();
        assertThat(storeRevision()).isEqualTo(revision);
        assertProblem(api.get("/v1/descriptors/" + domain), 404, "not_found");
    }

    @Test
    void anEmptyBodyIsRefusedAsAnEmptyFile() {
        Api.Response refused = api.request("POST", IMPORT).body("", "application/yaml").send();
        Api.Response none = api.request("POST", IMPORT).header("Content-Type", "application/yaml").send();

        assertProblem(refused, 422, "invalid_envoy_config");
        assertThat(refused.json().get("errors").get(0).get("message").asString()).contains("empty");
        assertProblem(none, 422, "invalid_envoy_config");
    }

    @Test
    void aBodyPastTheServicesLimitIs413WhetherItsLengthIsDeclaredOrNot() throws Exception {
        String huge = "domain: d\n" + "# padding\n".repeat(10_000);

        assertProblem(post(IMPORT, huge), 413, "payload_too_large");

        HttpRequest chunked = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + IMPORT))
                .header("Authorization", "Bearer " + TestTokens.all("alice"))
                .header("Content-Type", "application/yaml")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(huge.getBytes(StandardCharsets.UTF_8))))
                .build();
        HttpResponse<String> response = HttpClient.newHttpClient().send(chunked, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(413);
        assertThat(response.body()).contains("payload_too_large");
    }

    @ParameterizedTest
    @ValueSource(strings = {"application/yaml", "application/x-yaml", "text/yaml", "text/plain", "text/plain; charset=utf-8"})
    void takesTheFileUnderEachYamlMediaTypeAndAsPlainText(String contentType) {
        String domain = uniqueId("envoy");

        Api.Response imported = api.request("POST", IMPORT).body(readme(domain), contentType).send();

        assertThat(imported.status).as(imported.toString()).isEqualTo(201);
    }

    @Test
    void anotherMediaTypeIs415() {
        String domain = uniqueId("envoy");

        assertProblem(api.request("POST", IMPORT).body(readme(domain), "application/json").send(), 415, "unsupported_media_type");
        assertProblem(api.request("POST", IMPORT).body(readme(domain), "application/octet-stream").send(), 415, "unsupported_media_type");
        assertProblem(api.get("/v1/descriptors/" + domain), 404, "not_found");
    }

    @Test
    void importingNeedsATokenWithTheAdminScope() {
        String domain = uniqueId("envoy");

        assertProblem(api.as(null).request("POST", IMPORT).body(readme(domain), "application/yaml").send(), 401, "unauthorized");
        Api.Response reader = api.as(TestTokens.token("bob", TestTokens.READ)).request("POST", IMPORT + "?dry_run=true")
                .body(readme(domain), "application/yaml").send();
        assertProblem(reader, 403, "forbidden");
        assertThat(reader.json().get("required_scope").asString()).isEqualTo(TestTokens.ADMIN);
        assertProblem(api.get("/v1/descriptors/" + domain), 404, "not_found");
    }

    @Test
    void aFileWithoutDescriptorsStoresNothingAndSaysSo() {
        String domain = uniqueId("envoy");
        long revision = storeRevision();

        Api.Response imported = post(IMPORT, "domain: " + domain + "\n");

        assertThat(imported.status).as(imported.toString()).isEqualTo(200);
        assertThat(imported.json().get("rules")).isEmpty();
        assertThat(imported.json().has("descriptors")).isFalse();
        assertThat(imported.json().get("not_mapped").findValuesAsString("field")).containsExactly("descriptors");
        assertThat(storeRevision()).isEqualTo(revision);
    }

    private Api.Response post(String path, String yaml) {
        return api.request("POST", path).body(yaml, "application/yaml").send();
    }

    private List<String> shippedDomains() {
        List<String> domains = new ArrayList<>();
        for (JsonNode mapping : api.get("/v1/watch").json().get("descriptor_domains")) {
            domains.add(mapping.get("domain").asString());
        }
        return domains;
    }
}
