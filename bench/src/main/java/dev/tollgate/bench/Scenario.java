package dev.tollgate.bench;

import dev.tollgate.bench.report.Charts;
import dev.tollgate.bench.report.Section;

/**
 * One part of the report: runs its contenders side by side and writes up what it measured. Here beside
 * {@link Bench}, which every scenario runs on, because the scenarios live in three packages (scenario, scale,
 * soak); {@code scenario.Scenarios} lists them all.
 */
public interface Scenario {

    int number();

    String title();

    Section run(Bench bench, Charts charts);
}
