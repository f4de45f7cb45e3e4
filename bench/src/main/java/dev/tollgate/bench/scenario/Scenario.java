package dev.tollgate.bench.scenario;

import dev.tollgate.bench.Bench;
import dev.tollgate.bench.report.Charts;
import dev.tollgate.bench.report.Section;
import dev.tollgate.bench.scale.ScaleScenario;
import dev.tollgate.bench.soak.SoakScenario;

import java.util.List;

/** One part of the report: runs its contenders side by side and writes up what it measured. */
public interface Scenario {

    int number();

    String title();

    Section run(Bench bench, Charts charts);

    static List<Scenario> all() {
        return List.of(new DesignTableScenario(), new HotKeyScenario(), new TrafficMixScenario(),
                new OvershootScenario(), new LatencyScenario(), new PeersScenario(), new RefundsScenario(),
                new WireScenario(), new ScaleScenario(), new SoakScenario());
    }

    /**
     * Runs the traffic mix through the baseline and both Tollgate configurations, unreported, so that the
     * first scenario is not measuring the JIT.
     */
    static void warmUp(Bench bench, double seconds) {
        if (seconds <= 0) {
            return;
        }
        for (dev.tollgate.bench.fleet.Contender contender : List.of(dev.tollgate.bench.fleet.Contender.BASELINE,
                dev.tollgate.bench.fleet.Contender.PER_REQUEST, dev.tollgate.bench.fleet.Contender.OPTIMIZED)) {
            TrafficMixScenario.warmUp(bench, contender, seconds / 3);
        }
    }

    static Scenario byNumber(int number) {
        return all().stream().filter(s -> s.number() == number).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no scenario " + number));
    }
}
