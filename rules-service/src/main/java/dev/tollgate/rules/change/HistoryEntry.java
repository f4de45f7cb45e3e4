package dev.tollgate.rules.change;

import tools.jackson.databind.JsonNode;

import java.time.Instant;

/** One row of {@code rule_history}, as {@code GET /v1/rules/{id}/versions} shows it. */
public record HistoryEntry(
        long revision,
        Instant changedAt,
        String changedBy,
        String reason,
        String entity,
        String change,
        String ruleId,
        String accountId,
        Long oldVersion,
        Long newVersion,
        JsonNode oldValue,
        JsonNode newValue) {
}
