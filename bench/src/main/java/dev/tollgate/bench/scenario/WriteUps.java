package dev.tollgate.bench.scenario;

import dev.tollgate.bench.fleet.LocalAnswers;
import dev.tollgate.bench.report.Format;
import dev.tollgate.bench.report.Section;
import dev.tollgate.bench.report.Table;

import java.util.List;
import java.util.Map;

/** What the scenarios' write-ups share. */
final class WriteUps {

    private WriteUps() {
    }

    /**
     * Says so when the optimized engine made as many store calls as the per-request one: then the
     * optimizations were not active in the engine that ran, and its rows are per-request numbers.
     */
    static void noteIfOptimizationsInactive(Section section, double perRequestCalls, double optimizedCalls) {
        if (perRequestCalls > 0 && optimizedCalls >= 0.9 * perRequestCalls) {
            section.note("**The optimizations were not active in the engine that ran:** Tollgate ALL made "
                    + Format.ratio(optimizedCalls / perRequestCalls) + "× the store calls of Tollgate NONE, so its rows "
                    + "are per-request numbers. Rerun the bench once the engine's local-first bucket, leases and deny cache are in.");
        }
    }

    /** The engines' own count of what they answered without the store, per check of the measured window. */
    static Table localAnswersTable(Map<String, LocalAnswers> byContender, Map<String, Long> checks) {
        Table table = new Table("Answered on the pod, from the engines' metrics (per check of the measured window; a check "
                + "whose entries share a key is one key group):",
                List.of("contender", "lease hits", "deny-cache hits", "local-first drops", "lease tokens stranded"));
        for (Map.Entry<String, LocalAnswers> e : byContender.entrySet()) {
            double n = Math.max(1, checks.getOrDefault(e.getKey(), 0L));
            LocalAnswers a = e.getValue();
            table.row(e.getKey(), Format.percent(a.leaseHits() / n), Format.percent(a.denyCacheHits() / n),
                    Format.percent(a.localDrops() / n), Format.count(a.strandedTokens()));
        }
        return table;
    }
}
