package dev.tollgate.bench.scenario;

import dev.tollgate.bench.Bench;
import dev.tollgate.bench.Scenario;
import dev.tollgate.bench.fleet.Contender;
import dev.tollgate.bench.scale.ScaleScenario;
import dev.tollgate.bench.soak.SoakScenario;

import java.util.List;

/** Every scenario of the report, by its number, and the warm-up that runs before the first. */
public final class Scenarios {

    private Scenarios() {
    }

    public static List<Scenario> all() {
        return List.of(new DesignTableScenario(), new HotKeyScenario(), new TrafficMixScenario(),
                new OvershootScenario(), new LatencyScenario(), new PeersScenario(), new RefundsScenario(),
                new WireScenario(), new ScaleScenario(), new SoakScenario(), new RuleLookupScenario(), new CountAfterScenario());
    }

    public static Scenario byNumber(int number) {
        return all().stream().filter(s -> s.number() == number).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no scenario " + number));
    }

    /**
     * Runs the traffic mix through the baseline and both Tollgate configurations, unreported, so that the
     * first scenario is not measuring the JIT.
     */
    public static void warmUp(Bench bench, double seconds) {
        if (seconds <= 0) {
            return;
        }
        for (Contender contender : List.of(Contender.BASELINE, Contender.PER_REQUEST, Contender.OPTIMIZED)) {
            TrafficMixScenario.warmUp(bench, contender, seconds / 3);
        }
    }
}
