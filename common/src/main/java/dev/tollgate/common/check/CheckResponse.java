package dev.tollgate.common.check;

import java.util.List;

/** The answer: the strictest entry's verdict, then each entry in request order. */
public record CheckResponse(Verdict verdict, List<EntryResult> entries) {

    public static CheckResponse of(List<EntryResult> entries) {
        Verdict verdict = Verdict.ALLOW;
        for (EntryResult entry : entries) {
            verdict = verdict.and(entry.effectiveVerdict());
        }
        return new CheckResponse(verdict, List.copyOf(entries));
    }

    public boolean allowed() {
        return verdict == Verdict.ALLOW;
    }
}
