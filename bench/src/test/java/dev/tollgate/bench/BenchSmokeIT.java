package dev.tollgate.bench;

import dev.tollgate.bench.report.Section;
import dev.tollgate.bench.report.Table;
import dev.tollgate.bench.wire.ColdStarts;
import dev.tollgate.bench.wire.FakeRlsServer;
import dev.tollgate.bench.wire.WrkLoad;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the harness from rotting: every scenario runs for a fraction of a second at a tiny load on a real
 * cluster, and the report must come out whole. It asserts the report's shape, never its numbers.
 */
class BenchSmokeIT {

    @TempDir
    Path reportDir;

    @Test
    void everyScenarioWritesItsTablesAndCharts() throws Exception {
        BenchMain.Result result;
        long peerCalls;
        // scenario 8's RLS comparison against a stand-in for envoyproxy/ratelimit, its CPU read from this JVM's /proc entry
        try (FakeRlsServer peer = new FakeRlsServer()) {
            BenchOptions options = BenchOptions.parse(new String[] {
                    "--time-scale=0.04", "--load-scale=0.02", "--repeats=1", "--warmup-s=0",
                    "--latency-rates=1000", "--wire-rates=1000", "--wire-warmup-s=2", "--wire-cold-starts=1",
                    // the cold starts: fast-start.sh's two ways of training, its own layout with a rules file and the Dockerfile's image
                    // (AOT=on, in place, a saved snapshot); the other launches run no script of their own, and each start is a pod's
                    // whole start (six of them and three trainings were about a minute more of CI)
                    "--wire-cold-start-launches=fast-start,image",
                    // the cold ramp: the chart's launch alone (extracted by the cold starts already), with its default warm-up, one
                    // short round (each start is a pod's whole start: one keeps CI's time, ColdRampTest covers the settings' rows)
                    "--wire-ramp-rounds=1", "--wire-ramp-cap-s=2", "--wire-ramp-launches=extracted-aot", "--wire-ramp-warm-up=on",
                    "--report=" + reportDir,
                    "--peer-rls=127.0.0.1:" + peer.port(), "--peer-rls-pid=" + ProcessHandle.current().pid(),
                    "--scenarios=1,2,3,4,5,6,7,8,12"});

            result = BenchMain.run(options);
            peerCalls = peer.calls();
        }

        assertThat(result.sections()).extracting(Section::number).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 12);
        assertThat(rows(result, 1, 0)).hasSize(4);
        assertThat(rows(result, 1, 1)).hasSize(3);
        assertThat(rows(result, 2, 0)).hasSize(4);
        assertThat(rows(result, 3, 0)).hasSize(5);
        assertThat(rows(result, 4, 0)).hasSize(13);
        assertThat(rows(result, 5, 0)).hasSize(3);
        assertThat(rows(result, 6, 0)).hasSize(5);
        assertThat(rows(result, 6, 1)).hasSize(5);
        assertThat(rows(result, 7, 0)).hasSize(4);
        // saturation: floor and check-service over HTTP/1.1 and h2c, check-service over gRPC; the same at the one rate; two cold
        // starts and check-service's readiness
        assertThat(rows(result, 8, 0)).hasSize(5);
        assertThat(rows(result, 8, 1)).hasSize(5);
        assertThat(rows(result, 8, 2)).extracting(row -> row.get(0)).containsExactly("floor", "check-service", "check-service, ready");
        // check-service's cold start by launch, the two asked for, one round (the cold ramp's launch is started, not timed here)
        assertThat(rows(result, 8, 3)).extracting(row -> row.get(0))
                .containsExactly(ColdStarts.Launch.CLASS_CACHE.label, ColdStarts.Launch.IMAGE.label);
        assertThat(rows(result, 8, 3)).allSatisfy(row -> assertThat(row.get(1)).endsWith(" s"));
        // the JIT warm-up: each server over each protocol it speaks (2 s each here: too short to settle, so the cap is hit)
        assertThat(rows(result, 8, 4)).hasSize(5);
        if (WrkLoad.find().isPresent()) {
            // wrk on the PATH: floor and check-service at saturation and paced
            assertThat(rows(result, 8, 5)).hasSize(4);
        }
        // the cold ramp: the chart's launch with its warm-up, its figures and a line of the chart
        Table ramp = section(result, 8).tables().stream().filter(table -> table.caption().startsWith("**Cold ramp**")).findFirst().orElseThrow();
        assertThat(ramp.rows()).extracting(row -> row.get(0) + ", " + row.get(1)).containsExactly(
                ColdStarts.Launch.EXTRACTED_AOT.label + ", on");
        assertThat(ramp.rows()).allSatisfy(row -> assertThat(row.get(2)).endsWith(" s"));
        assertThat(section(result, 8).charts()).extracting(Section.Chart::relativePath).anyMatch(path -> path.endsWith("s8-wire-cold-ramp.png"));
        assertThat(section(result, 8).checks()).extracting(Section.Check::target).filteredOn(target -> target.startsWith("Wire, cold ramp"))
                .hasSize(2);
        // issue 29: the design's and the store-bound mix against the floor, each server at saturation (and by wrk when present)
        List<List<String>> mixes = table(result, 8, "**Two mixes at saturation**").rows();
        assertThat(mixes).filteredOn(row -> row.get(1).equals("bench client")).extracting(row -> row.get(0) + ", " + row.get(2))
                .containsExactly("the design's mix, floor", "the design's mix, check-service", "store-bound mix, floor", "store-bound mix, check-service");
        // check-service's own store calls were read around each step: a figure, not "–"
        assertThat(mixes).filteredOn(row -> row.get(2).equals("check-service")).allSatisfy(row -> assertThat(row.get(9)).matches("\\d+\\.\\d\\d"));
        assertThat(table(result, 8, "**Two mixes open loop**").rows()).extracting(row -> row.get(0) + ", " + row.get(2))
                .containsExactly("the design's mix, floor", "the design's mix, check-service", "store-bound mix, floor", "store-bound mix, check-service");
        // the RLS peer took the gRPC steps' calls of both mixes beside check-service, its CPU measured
        assertThat(peerCalls).isPositive();
        List<List<String>> overRls = table(result, 8, "**Over RLS**").rows();
        assertThat(overRls).extracting(row -> row.get(0) + ", " + row.get(1) + ", " + row.get(2).replaceAll(" \\(.*", ""))
                .containsExactly("the design's mix, saturation, check-service", "the design's mix, saturation, RLS peer",
                        "the design's mix, 20/s, check-service", "the design's mix, 20/s, RLS peer",
                        "store-bound mix, saturation, check-service", "store-bound mix, saturation, RLS peer",
                        "store-bound mix, 20/s, check-service", "store-bound mix, 20/s, RLS peer");
        assertThat(overRls).allSatisfy(row -> assertThat(row.get(6)).endsWith(" µs"));
        assertThat(section(result, 8).method()).anySatisfy(text -> assertThat(text).contains("REDIS_TYPE=cluster").contains("requests_per_unit: 5 }"));
        // count after: the flood on 10 and on 50 pods, each judged on calls per request and on the bound
        assertThat(rows(result, 12, 0)).extracting(row -> row.get(0)).containsExactly("10", "50");
        assertThat(section(result, 12).checks()).hasSize(4);
        for (Section section : result.sections()) {
            assertThat(section.method()).as("how scenario %d is measured", section.number()).isNotEmpty();
            assertThat(section.charts()).as("charts of scenario %d", section.number()).isNotEmpty();
            for (Section.Chart chart : section.charts()) {
                Path png = reportDir.resolve(chart.relativePath());
                BufferedImage image = ImageIO.read(png.toFile());
                assertThat(image).as(png.toString()).isNotNull();
                assertThat(image.getWidth()).isGreaterThan(100);
            }
        }

        String readme = Files.readString(result.readme());
        assertThat(result.readme()).isEqualTo(reportDir.resolve("README.md"));
        for (int number : new int[] {1, 2, 3, 4, 5, 6, 7, 8, 12}) {
            assertThat(readme).contains("## " + number + ". ");
        }
        assertThat(readme)
                .contains("| scenario | target | measured | met |")
                .contains("java -jar bench/target/tollgate-bench.jar")
                .contains("](report/s1-design-table.png)")
                .contains("](report/s8-wire-p99.png)")
                .contains("](report/s12-count-after-over.png)");
    }

    private static Section section(BenchMain.Result result, int scenario) {
        return result.sections().stream().filter(section -> section.number() == scenario).findFirst().orElseThrow();
    }

    private static Table table(BenchMain.Result result, int scenario, String captionStart) {
        return section(result, scenario).tables().stream().filter(table -> table.caption().startsWith(captionStart)).findFirst()
                .orElseThrow(() -> new AssertionError("no table " + captionStart + " in scenario " + scenario));
    }

    private static List<List<String>> rows(BenchMain.Result result, int scenario, int table) {
        List<Table> tables = section(result, scenario).tables();
        assertThat(tables).as("tables of scenario %d", scenario).hasSizeGreaterThan(table);
        return tables.get(table).rows();
    }
}
