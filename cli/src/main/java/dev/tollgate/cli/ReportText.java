package dev.tollgate.cli;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The service's answers as lines a person reads in a CI log: an apply's or a diff's report object by object and field
 * by field, and a problem (RFC 9457, with its {@code code} and {@code errors[]}) with each error at its field. Pure:
 * trees in, lines out.
 */
final class ReportText {

    private static final int MAX_BODY = 300;

    private ReportText() {
    }

    /**
     * A report ({@code ApplyReport}): a line for the domain and its counts, then each object that changes,
     * {@code +} created, {@code -} deleted, {@code ~} updated with its fields {@code before -> after}.
     */
    static List<String> report(Map<String, Object> report) {
        List<String> lines = new ArrayList<>();
        String domain = text(report.get("domain"));
        boolean dryRun = Boolean.TRUE.equals(report.get("dry_run"));
        boolean changed = Boolean.TRUE.equals(report.get("changed"));
        Map<String, Object> summary = map(report.get("summary"));
        String counts = counts(summary);
        if (!changed) {
            lines.add("domain " + domain + ": no changes" + (counts.isEmpty() ? "" : " (" + counts + ")"));
            return lines;
        }
        lines.add("domain " + domain + ": " + (dryRun ? "would change: " : "changed: ") + counts);
        for (Object item : list(report.get("changes"))) {
            Map<String, Object> change = map(item);
            String outcome = text(change.get("outcome"));
            String mark = switch (outcome) {
                case "created" -> "+";
                case "deleted" -> "-";
                case "updated" -> "~";
                default -> null;
            };
            if (mark == null) {
                continue;
            }
            lines.add("  " + mark + " " + object(change) + (mark.equals("~") ? "" : " (" + outcome + ")"));
            for (Object field : list(change.get("fields"))) {
                Map<String, Object> f = map(field);
                lines.add("      " + text(f.get("field")) + ": " + shown(f.get("before")) + " -> " + shown(f.get("after")));
            }
        }
        return lines;
    }

    /** A refusal: its status and code, its detail, and each of its {@code errors} at its field. */
    static List<String> problem(RulesApi.Answer answer) {
        List<String> lines = new ArrayList<>();
        Map<String, Object> problem = answer.object();
        if (problem == null) {
            String body = answer.body() == null ? "" : new String(answer.body(), StandardCharsets.UTF_8).strip();
            body = body.length() > MAX_BODY ? body.substring(0, MAX_BODY) + "…" : body;
            lines.add("HTTP " + answer.status() + (body.isEmpty() ? "" : ": " + body.replaceAll("\\s+", " ")));
            return lines;
        }
        String code = problem.get("code") == null ? "" : " " + text(problem.get("code"));
        Object detail = problem.get("detail") != null ? problem.get("detail") : problem.get("title");
        lines.add("HTTP " + answer.status() + code + (detail == null ? "" : ": " + text(detail)));
        for (Object item : list(problem.get("errors"))) {
            if (item instanceof Map<?, ?> error) {
                Object field = error.get("field");
                lines.add("  " + (field == null || text(field).isEmpty() ? "" : text(field) + ": ") + text(error.get("message")));
            } else {
                lines.add("  " + text(item));
            }
        }
        if (problem.get("required_scope") != null) {
            lines.add("  the token needs scope " + text(problem.get("required_scope")));
        }
        return lines;
    }

    private static String object(Map<String, Object> change) {
        return switch (text(change.get("kind"))) {
            case "rule" -> "rule " + text(change.get("id"));
            case "descriptors" -> "descriptors of domain " + text(change.get("id"));
            case "override" -> "override for account " + text(change.get("account_id")) + " on rule " + text(change.get("rule_id"));
            default -> text(change.get("kind")) + " " + text(change.get("id"));
        };
    }

    private static String counts(Map<String, Object> summary) {
        List<String> parts = new ArrayList<>();
        for (String outcome : List.of("created", "updated", "deleted", "unchanged")) {
            Object count = summary.get(outcome);
            if (count instanceof Number number && number.intValue() > 0) {
                parts.add(number + " " + outcome);
            }
        }
        return String.join(", ", parts);
    }

    /** A field's value as the report gives it (text); absent is "(none)", so that a field added or removed shows as such. */
    private static String shown(Object value) {
        return value == null ? "(none)" : text(value);
    }

    private static String text(Object value) {
        return value == null ? "" : String.valueOf(value);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        return value instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
    }

    private static List<?> list(Object value) {
        return value instanceof List<?> list ? list : List.of();
    }
}
