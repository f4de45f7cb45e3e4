package dev.tollgate.deploy;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every series a dashboard panel, a dashboard variable or an alert names is one a service exports:
 * listed in docs/metric-series.txt, whose sections the services' scrape tests hold against live scrapes.
 * A panel or an alert on a series nobody exports stays empty or silent without anyone noticing.
 */
class SeriesOfDashboardsAndAlertsTest {

    private static final Set<String> PROMQL_WORDS = Set.of("by", "without", "on", "ignoring", "group_left", "group_right",
            "and", "or", "unless", "bool", "offset", "inf", "nan");
    private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

    @Test
    void everyAlertNamesOnlyExportedSeries() {
        Manifests release = TollgateChart.render("us-east");
        List<String> expressions = release.one("PrometheusRule", "tollgate-alerts").items("spec", "groups").stream()
                .flatMap(group -> group.items("rules").stream())
                .map(rule -> rule.at("expr").text())
                .toList();

        assertThat(expressions).hasSizeGreaterThan(10);
        assertThat(unexported(expressions)).as("series named by alerts but missing from docs/metric-series.txt").isEmpty();
    }

    @Test
    void everyDashboardPanelAndVariableNamesOnlyExportedSeries() {
        JsonNode dashboard = JsonMapper.builder().build().readTree(RepositoryFiles.read("helm/tollgate/dashboards/tollgate.json"));
        List<String> expressions = new ArrayList<>();
        dashboard.get("panels").valueStream()
                .filter(panel -> panel.has("targets"))
                .flatMap(panel -> panel.get("targets").valueStream())
                .forEach(target -> expressions.add(target.get("expr").asString()));
        dashboard.at("/templating/list").valueStream()
                .filter(variable -> "query".equals(variable.get("type").asString()))
                .forEach(variable -> expressions.add(labelValuesSelector(variable.get("definition").asString())));

        assertThat(expressions).hasSizeGreaterThan(20);
        assertThat(unexported(expressions)).as("series named by the dashboard but missing from docs/metric-series.txt").isEmpty();
    }

    @Test
    void findsTheSeriesOfAnExpressionAndNothingElse() {
        // the parser itself: labels, functions, ranges, grouping, strings and numbers are not series
        assertThat(series("sum by (namespace, le) (rate(tollgate_checks_seconds_bucket{le=\"0.001\", uri!~\"/actuator.*\"}[5m]))"
                + " / on (namespace) group_left sum(rate(http_server_requests_seconds_count[1h] offset 5m)) > 0.5 and absent(up)"))
                .containsExactlyInAnyOrder("tollgate_checks_seconds_bucket", "http_server_requests_seconds_count", "up");
    }

    @Test
    void everyAlertLinksToItsRunbookSection() {
        Manifests release = TollgateChart.render("us-east");
        String runbooks = RepositoryFiles.read("docs/runbooks.md");
        Map<String, String> links = release.one("PrometheusRule", "tollgate-alerts").items("spec", "groups").stream()
                .flatMap(group -> group.items("rules").stream())
                .collect(Collectors.toMap(rule -> rule.at("alert").text(), rule -> rule.at("annotations", "runbook_url").text()));

        assertThat(links).isNotEmpty().allSatisfy((alert, url) -> {
            assertThat(url).isEqualTo("https://tollgate.example/docs/runbooks.md#" + alert.toLowerCase());
            assertThat(runbooks).as("a section for " + alert).contains("\n## " + alert + "\n");
        });
    }

    private static Set<String> unexported(List<String> expressions) {
        Set<String> exported = new TreeSet<>();
        for (String line : RepositoryFiles.read("docs/metric-series.txt").lines().toList()) {
            String[] fields = line.strip().split("\\s+");
            if (fields.length == 2 && !line.startsWith("#")) {
                exported.add(fields[1]);
            }
        }
        exported.add("up");
        Set<String> named = new TreeSet<>();
        expressions.forEach(expression -> named.addAll(series(expression)));
        named.removeAll(exported);
        return named;
    }

    /** label_values(series{...}, label) names series{...}. */
    private static String labelValuesSelector(String definition) {
        Matcher matcher = Pattern.compile("label_values\\((.*),\\s*\\w+\\)").matcher(definition);
        return matcher.matches() ? matcher.group(1) : definition;
    }

    /** The series an expression names: identifiers that are neither functions, keywords, nor inside labels, ranges or groupings. */
    static Set<String> series(String expression) {
        String bare = expression
                .replaceAll("\"(\\\\.|[^\"\\\\])*\"", "\"\"")
                .replaceAll("\\{[^}]*}", " ")
                .replaceAll("\\[[^]]*]", " ")
                .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ")
                .replaceAll("\\boffset\\s+\\S+", " ");
        Set<String> names = new TreeSet<>();
        Matcher matcher = IDENTIFIER.matcher(bare);
        while (matcher.find()) {
            String word = matcher.group();
            int after = matcher.end();
            while (after < bare.length() && bare.charAt(after) == ' ') {
                after++;
            }
            boolean function = after < bare.length() && bare.charAt(after) == '(';
            boolean number = matcher.start() > 0 && Character.isDigit(bare.charAt(matcher.start() - 1));
            if (!function && !number && !PROMQL_WORDS.contains(word.toLowerCase())) {
                names.add(word);
            }
        }
        return names;
    }
}
