package dev.tollgate.bench.wire;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Issue 29's additions to scenario 8: which traffic mixes its HTTP/1.1 comparison with the floor and its RLS comparison
 * with a peer run ({@code --wire-mixes}), the store-bound mix's keys ({@code --wire-store-keys}), and the RLS peer
 * ({@code --peer-rls}, {@code --peer-rls-pid}). The design's mix's own tables run whatever is chosen here.
 */
public record WireMixOptions(List<Kind> mixes, int storeBoundKeys, Optional<PeerRls> peer) {

    /** The mixes: the design's (scenario 3's), and the store-bound one (a store call on every check). */
    public enum Kind {
        DESIGN("design", "the design's mix"), STORE_BOUND("store-bound", "store-bound mix");

        public final String option;
        public final String label;

        Kind(String option, String label) {
            this.option = option;
            this.label = label;
        }

        static Kind of(String option) {
            return Arrays.stream(values()).filter(kind -> kind.option.equals(option.trim().toLowerCase(Locale.ROOT))).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("--wire-mixes: design or store-bound, was " + option));
        }
    }

    public static final WireMixOptions DEFAULTS = new WireMixOptions(List.of(Kind.values()), 20_000, Optional.empty());

    public WireMixOptions {
        mixes = List.copyOf(mixes);
        if (mixes.isEmpty()) {
            throw new IllegalArgumentException("--wire-mixes: at least one of design, store-bound");
        }
        if (storeBoundKeys < 100) {
            throw new IllegalArgumentException("--wire-store-keys must be at least 100, was " + storeBoundKeys);
        }
    }

    public static List<Kind> kinds(String csv) {
        return Arrays.stream(csv.split(",")).filter(part -> !part.isBlank()).map(Kind::of).distinct().toList();
    }

    public boolean runs(Kind kind) {
        return mixes.contains(kind);
    }
}
