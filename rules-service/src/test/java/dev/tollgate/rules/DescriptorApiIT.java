package dev.tollgate.rules;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

import java.util.stream.Stream;

import static dev.tollgate.rules.RuleApiIT.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * {@code /v1/descriptors}: Envoy's descriptor mappings stored per domain under {@code If-Match}, refused
 * with 422 {@code invalid_descriptors} when they name no rule of the domain, shipped in the watch feed
 * with the rules, and holding on to the rules they name.
 */
class DescriptorApiIT extends ServiceTestBase {

    @Test
    void storesADomainsDescriptorsAndShipsThemInTheWatchFeed() {
        String domain = uniqueId("envoy");
        String account = uniqueId("acct");
        String route = uniqueId("route");
        api.put("/v1/rules/" + account, tokenBucket(domain, 100, 200));
        api.put("/v1/rules/" + route, tokenBucket(domain, 1, 2));
        long before = storeRevision();

        Api.Response created = api.put("/v1/descriptors/" + domain, nested(account, route));

        assertThat(created.status).as(created.toString()).isEqualTo(201);
        assertThat(created.etag()).isEqualTo("\"1\"");
        assertThat(created.json().get("descriptors").get(0).get("descriptors").get(0).get("limit_key").asString()).isEqualTo("account");
        assertThat(storeRevision()).isGreaterThan(before);
        assertThat(api.get("/v1/descriptors/" + domain).json().get("descriptors").get(0).get("rule").asString()).isEqualTo(account);

        JsonNode feed = api.get("/v1/watch").json();
        JsonNode shipped = null;
        for (JsonNode mapping : feed.get("descriptor_domains")) {
            if (mapping.get("domain").asString().equals(domain)) {
                shipped = mapping;
            }
        }
        assertThat(shipped).as("the watch feed ships domain " + domain).isNotNull();
        assertThat(shipped.get("descriptors").get(0).get("descriptors").get(0).get("rule").asString()).isEqualTo(route);
        assertThat(shipped.get("version").asLong()).isEqualTo(1);
    }

    @Test
    void aReplacementNeedsTheVersionItWasBasedOn() {
        String domain = uniqueId("envoy");
        String rule = uniqueId("acct");
        api.put("/v1/rules/" + rule, tokenBucket(domain, 100, 200));
        api.put("/v1/descriptors/" + domain, flat("account", rule));

        assertProblem(api.put("/v1/descriptors/" + domain, flat("user", rule)), 428, "precondition_required");
        assertProblem(api.request("PUT", "/v1/descriptors/" + domain).ifMatch(7).body(flat("user", rule)).send(), 409, "version_conflict");

        Api.Response replaced = api.request("PUT", "/v1/descriptors/" + domain).ifMatch(1).body(flat("user", rule)).send();
        assertThat(replaced.status).isEqualTo(200);
        assertThat(replaced.etag()).isEqualTo("\"2\"");
        assertThat(api.get("/v1/descriptors/" + domain).json().get("descriptors").get(0).get("key").asString()).isEqualTo("user");

        assertThat(api.request("DELETE", "/v1/descriptors/" + domain).ifMatch(2).send().status).isEqualTo(204);
        assertProblem(api.get("/v1/descriptors/" + domain), 404, "not_found");
    }

    static Stream<Arguments> badMappings() {
        return Stream.of(
                arguments("a rule that does not exist", "{'descriptors':[{'key':'account','rule':'no-such-rule'}]}", "descriptors[0].rule"),
                arguments("no descriptors", "{'descriptors':[]}", "descriptors"),
                arguments("a node that maps nothing", "{'descriptors':[{'key':'account'}]}", "descriptors[0]"),
                arguments("a key missing", "{'descriptors':[{'rule':'RULE'}]}", "descriptors[0].key"),
                arguments("an empty value", "{'descriptors':[{'key':'route','value':'','rule':'RULE'}]}", "descriptors[0].value"),
                arguments("a limit key off the path", "{'descriptors':[{'key':'account','descriptors':[{'key':'route','rule':'RULE',"
                        + "'limit_key':'plan'}]}]}", "descriptors[0].descriptors[0].limit_key"),
                arguments("the same key twice", "{'descriptors':[{'key':'account','rule':'RULE'},{'key':'account','rule':'RULE'}]}",
                        "descriptors[1]"),
                arguments("a domain other than the path's", "{'domain':'elsewhere','descriptors':[{'key':'account','rule':'RULE'}]}", "domain"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badMappings")
    void refusesABadMappingWith422BeforeStoringAnything(String why, String body, String field) {
        String domain = uniqueId("envoy");
        String rule = uniqueId("acct");
        api.put("/v1/rules/" + rule, tokenBucket(domain, 100, 200));
        long revision = storeRevision();

        Api.Response refused = api.put("/v1/descriptors/" + domain, Api.json(body.replace("RULE", rule)));

        assertProblem(refused, 422, "invalid_descriptors");
        assertThat(refused.json().get("errors").findValuesAsString("field")).contains(field);
        assertProblem(api.get("/v1/descriptors/" + domain), 404, "not_found");
        assertThat(storeRevision()).isEqualTo(revision);
    }

    @Test
    void refusesARuleOfAnotherDomain() {
        String rule = uniqueId("acct");
        api.put("/v1/rules/" + rule, tokenBucket(uniqueId("other"), 100, 200));

        Api.Response refused = api.put("/v1/descriptors/" + uniqueId("envoy"), flat("account", rule));

        assertProblem(refused, 422, "invalid_descriptors");
        assertThat(refused.json().get("errors").get(0).get("message").asString()).contains("not of this domain");
    }

    @Test
    void aMappedRuleCannotBeDeletedOrMovedToAnotherDomain() {
        String domain = uniqueId("envoy");
        String rule = uniqueId("acct");
        api.put("/v1/rules/" + rule, tokenBucket(domain, 100, 200));
        api.put("/v1/descriptors/" + domain, flat("account", rule));

        Api.Response deleted = api.request("DELETE", "/v1/rules/" + rule).ifMatch(1).send();
        assertProblem(deleted, 422, "invalid_rule");
        assertThat(deleted.json().get("errors").get(0).get("message").asString()).contains("the descriptors of domain " + domain);
        assertProblem(api.request("PUT", "/v1/rules/" + rule).ifMatch(1).body(tokenBucket(uniqueId("moved"), 100, 200)).send(),
                422, "invalid_rule");
        assertThat(api.get("/v1/rules/" + rule).status).isEqualTo(200);

        api.request("DELETE", "/v1/descriptors/" + domain).ifMatch(1).send();
        assertThat(api.request("DELETE", "/v1/rules/" + rule).ifMatch(1).send().status).isEqualTo(204);
    }

    @Test
    void readingNeedsTheReadScopeAndWritingTheAdminScope() {
        String domain = uniqueId("envoy");
        assertThat(api.as(null).get("/v1/descriptors").status).isEqualTo(401);
        assertThat(api.as(TestTokens.token("bob", "ratelimit:read")).put("/v1/descriptors/" + domain, flat("account", "x")).status).isEqualTo(403);
        assertThat(api.as(TestTokens.token("bob", "ratelimit:read")).get("/v1/descriptors").status).isEqualTo(200);
    }

    private static String flat(String key, String rule) {
        return Api.json("{'descriptors':[{'key':'" + key + "','rule':'" + rule + "'}],'reason':'envoy rollout'}");
    }

    private static String nested(String account, String route) {
        return Api.json("{'descriptors':[{'key':'account','rule':'" + account + "','descriptors':"
                + "[{'key':'route','value':'/v1/labels','rule':'" + route + "','limit_key':'account'}]}]}");
    }
}
