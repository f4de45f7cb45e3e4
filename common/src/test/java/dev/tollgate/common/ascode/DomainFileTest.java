package dev.tollgate.common.ascode;

import dev.tollgate.common.ascode.DomainFile.Format;
import dev.tollgate.common.ascode.DomainFile.Reading;
import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.validation.Violation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class DomainFileTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    /** The checked-in example every rules-as-code test holds to: it is in the canonical form. */
    private static final Path EXAMPLES = Path.of("..", "examples", "rules-as-code", "rules");

    @ParameterizedTest
    @ValueSource(strings = {"public-api.yaml", "internal-tools.yaml"})
    void theExampleFilesAreCanonicalSoTheyAreWrittenBackByteForByte(String name) throws IOException {
        String file = Files.readString(EXAMPLES.resolve(name));

        Reading reading = parse(file, Format.YAML);

        assertThat(reading.problems()).isEmpty();
        assertThat(DomainFile.write(reading.config(), Format.YAML)).isEqualTo(file);
        String json = DomainFile.write(reading.config(), Format.JSON);
        Reading again = parse(json, Format.JSON);
        assertThat(again.config()).isEqualTo(reading.config());
        assertThat(DomainFile.write(again.config(), Format.JSON)).isEqualTo(json);
    }

    @Test
    void readsWhatTheFileSaysWithTheDefaultsOfTheApi() throws IOException {
        DomainConfig config = parse(Files.readString(EXAMPLES.resolve("public-api.yaml")), Format.YAML).config();

        assertThat(config.domain()).isEqualTo("public-api");
        assertThat(config.rules()).extracting(Rule::id).containsExactly("public-api.growth-global", "public-api.labels-route",
                "public-api.login", "public-api.reports-daily");
        Rule growth = config.rules().get(0);
        assertThat(growth.domain()).isEqualTo("public-api");
        assertThat(growth.failsClosed()).isFalse();
        assertThat(growth.maxCost()).isEqualTo(1);
        assertThat(growth.version()).isZero();
        assertThat(config.rules().get(2).failsClosed()).isTrue();
        assertThat(config.descriptors().descriptors()).hasSize(3);
        assertThat(config.descriptors().descriptors().get(2).unlimited()).isTrue();
        assertThat(config.overrides()).extracting(AccountOverride::accountId).containsExactly("acct_launch", "acct_partner");
        assertThat(config.overrides().get(0).expiresAt()).isEqualTo(Instant.parse("2099-01-01T00:00:00Z"));
        assertThat(config.overrides().get(0).reason()).isEqualTo("launch week: 5x for the keynote");
    }

    @Test
    void anyOrderAndSpellingOfTheSameConfigurationIsWrittenTheSameAndHasTheSameDigest() {
        Reading written = parse("""
                overrides:
                  - {burst: 10, rate_per_s: 5, rule_id: b, account_id: z}
                  - {account_id: a, rule_id: b, rate_per_s: 5, burst: 10}
                rules:
                  - {id: b, algorithm: TOKEN_BUCKET, rate_per_s: 1, burst: 10, period_s: 1, max_cost: 1, mode: enforce, match: {route: /r}}
                  - {id: a, domain: d, algorithm: fixed_window, limit: 3, window_s: 60, identity: api_key, match: {plan: p}}
                domain: d
                """, Format.YAML);

        assertThat(written.problems()).isEmpty();
        String canonical = DomainFile.write(written.config(), Format.YAML);
        assertThat(canonical).isEqualTo("""
                domain: d
                rules:
                  - id: a
                    match:
                      plan: p
                    algorithm: fixed_window
                    limit: 3
                    window_s: 60
                  - id: b
                    match:
                      route: /r
                    algorithm: token_bucket
                    rate_per_s: 1
                    burst: 10
                overrides:
                  - account_id: a
                    rule_id: b
                    rate_per_s: 5
                    burst: 10
                  - account_id: z
                    rule_id: b
                    rate_per_s: 5
                    burst: 10
                """);
        assertThat(DomainFile.digest(parse(canonical, Format.YAML).config())).isEqualTo(DomainFile.digest(written.config()));
        assertThat(DomainFile.digest(parse(canonical.replace("limit: 3", "limit: 4"), Format.YAML).config()))
                .isNotEqualTo(DomainFile.digest(written.config()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"yes", "No", "null", "~x", "10.0.0.1", "1e3", "0x1f", "/files/*", "*", "&a", "a: b", "a #b", "- a", " lead",
            "trail ", "", "2030-01-01", "quote\"d", "back\\slash", "line\nbreak\ttab", "ünïcödé ✓", "\u2028", "@x", "!tag", "%x", "`x",
            "[x]", "{x}", "x,y", "?", "|", ">"})
    void aStringIsQuotedWhenItCouldBeReadAsAnythingElseAndReadsBackAsItself(String value) {
        Rule rule = Rule.tokenBucket("r", "d", 1, 1).withMatch(new dev.tollgate.common.rule.Match("p", "/x"));
        AccountOverride override = new AccountOverride("acct", "r", 1, 1, null, value);
        DomainConfig config = new DomainConfig("d", List.of(rule), null, List.of(override));

        for (Format format : Format.values()) {
            Reading back = parse(DomainFile.write(config, format), format);
            assertThat(back.problems()).as(format + " " + DomainFile.write(config, format)).isEmpty();
            assertThat(back.config().overrides().get(0).reason()).isEqualTo(value);
        }
    }

    @Test
    void listsEveryProblemOfTheFileAtItsPath() {
        Reading reading = parse("""
                domain: d
                colour: blue
                rules:
                  - id: ok
                    match: {plan: p}
                    algorithm: token_bucket
                    rate_per_s: 10
                    burst: 20
                  - id: ok
                    match: {plan: p}
                    algorithm: token_bucket
                    rate_per_s: 10
                    burst: 20
                  - id: bad
                    domain: other
                    algorithm: token_bucket
                    rate_per_s: "10"
                    burst: 2.5
                    limit: 3
                    mode: loud
                    version: 4
                descriptors:
                  - key: account
                    rule: nowhere
                overrides:
                  - account_id: a
                    rule_id: ghost
                    rate_per_s: 1
                    burst: 1
                  - account_id: b
                    rule_id: ok
                    rate_per_s: 1
                    burst: 1
                    expires_at: "2020-01-01T00:00:00Z"
                  - account_id: c
                    rule_id: ok
                    rate_per_s: 1
                    burst: 1
                    expires_at: tomorrow
                """, Format.YAML);

        assertThat(reading.valid()).isFalse();
        assertThat(reading.violations()).extracting(Violation::field).contains(
                "colour", "rules[1].id", "rules[2].domain", "rules[2].rate_per_s", "rules[2].burst", "rules[2].mode", "rules[2].version",
                "descriptors[0].rule", "overrides[0].rule_id", "overrides[1].expires_at", "overrides[2].expires_at");
        assertThat(reading.violations()).filteredOn(v -> v.field().equals("overrides[0].rule_id"))
                .extracting(Violation::message).allMatch(message -> message.contains("of this file"));
    }

    @Test
    void aFileOfOnlyItsDomainIsAnEmptyDomainAndAFileWithoutOneIsRefused() {
        assertThat(parse("domain: d\n", Format.YAML).config()).isEqualTo(DomainConfig.empty("d"));
        assertThat(parse("domain: d\ndescriptors: []\nrules:\n", Format.YAML).config()).isEqualTo(DomainConfig.empty("d"));
        assertThat(DomainFile.write(DomainConfig.empty("d"), Format.JSON)).isEqualTo("{\n  \"domain\": \"d\"\n}\n");
        assertThat(parse("rules: []\n", Format.YAML).violations()).extracting(Violation::field).containsExactly("domain");
        assertThat(parse("[1]", Format.JSON).violations()).extracting(Violation::field).containsExactly("");
    }

    @Test
    void whatTheParserRefusesIsUnreadableOrRefusedBeforeAnythingIsJudged() {
        assertThat(parse("domain: [", Format.YAML).unreadable()).contains("line");
        assertThat(parse("domain: &a d\nrules: *a\n", Format.YAML).violations()).extracting(Violation::field).containsExactly("rules");
        assertThat(parse("{\"domain\": \"d\",}", Format.JSON).unreadable()).startsWith("is not JSON");
    }

    private static Reading parse(String text, Format format) {
        return DomainFile.parse(text.getBytes(StandardCharsets.UTF_8), format, NOW);
    }

    @Test
    void aCountAfterRuleIsReadAndWrittenBackWithItsCounting() {
        String canonical = """
                domain: edge
                rules:
                  - id: flood-ip
                    match:
                      route: /
                    identity: ip
                    algorithm: token_bucket
                    rate_per_s: 50
                    burst: 100
                    counting: after
                """;
        Reading reading = parse(canonical, Format.YAML);

        assertThat(reading.violations()).isEmpty();
        assertThat(reading.config().rules().get(0).counting()).isEqualTo(dev.tollgate.common.rule.Counting.AFTER);
        assertThat(DomainFile.write(reading.config(), Format.YAML)).isEqualTo(canonical);
        assertThat(parse(canonical.replace("counting: after", "counting: later"), Format.YAML).violations())
                .extracting(Violation::field).containsExactly("rules[0].counting");
    }
}
