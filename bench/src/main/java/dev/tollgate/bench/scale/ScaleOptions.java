package dev.tollgate.bench.scale;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Scenario 9's size and the services it runs.
 *
 * @param keys           budget keys (the figure: 1,000,000)
 * @param pods           simulated pods long-polling rules-service (the issue's: 150)
 * @param cycles         measured rebalancer cycles, after two warm ones
 * @param servicesDir    the checkout whose {@code rules-service/target} and {@code budget-rebalancer/target} hold the Boot jars
 * @param rulesHeap      rules-service's {@code -Xmx}
 * @param rebalancerHeap the rebalancer's {@code -Xmx}: the heap bound its cycle time is measured under
 */
public record ScaleOptions(int keys, int pods, int cycles, Path servicesDir, String rulesHeap, String rebalancerHeap) {

    public static final ScaleOptions DEFAULTS = new ScaleOptions(1_000_000, 150, 6, Path.of("."), "2g", "1g");

    public ScaleOptions {
        if (keys < 4 || pods < 1 || cycles < 1) {
            throw new IllegalArgumentException("--scale-keys must be at least 4, --scale-pods and --scale-cycles at least 1");
        }
        if (!rulesHeap.matches("\\d+[mg]") || !rebalancerHeap.matches("\\d+[mg]")) {
            throw new IllegalArgumentException("--scale-rules-heap and --scale-rebalancer-heap take a size such as 512m or 2g");
        }
    }

    Path rulesJar() {
        return jar("rules-service");
    }

    Path rebalancerJar() {
        return jar("budget-rebalancer");
    }

    /** The Boot jar in {@code <module>/target} (the plain-classes jar lives in target/lib, so it is the only one there). */
    private Path jar(String module) {
        Path target = servicesDir.resolve(module).resolve("target");
        try (Stream<Path> files = Files.list(target)) {
            return files.filter(f -> f.getFileName().toString().matches("tollgate-" + module + "-.*\\.jar")).findFirst()
                    .orElse(target.resolve("tollgate-" + module + ".jar"));
        } catch (java.io.IOException e) {
            return target.resolve("tollgate-" + module + ".jar");
        }
    }
}
