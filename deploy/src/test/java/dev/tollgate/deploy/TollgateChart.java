package dev.tollgate.deploy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The chart in helm/tollgate, rendered and linted by a real Helm (the library helm-java ships), as
 * release "tollgate" in namespace "tollgate".
 *
 * <p>Two gaps in helm-java 0.0.21 are bridged here, both on a copy of the chart:
 * <ul>
 *   <li>{@code template} returns the release manifest without hooks (the Helm CLI appends them;
 *       manusa/helm-java#416 would add it). {@link #renderWithHooks} renders a copy whose
 *       {@code helm.sh/hook*} annotation keys are renamed, so Helm treats the hook objects as ordinary
 *       ones; {@link Manifests#hookAnnotations} reads them back under their real names.</li>
 *   <li>{@code lint} takes no values files. {@link #lint} lints a copy whose values.yaml is the region's
 *       file coalesced over the defaults, as Helm merges them (maps merge, anything else is replaced).</li>
 * </ul>
 */
final class TollgateChart {

    static final List<String> REGIONS = List.of("us-east", "eu-west", "ap-south");
    static final String RELEASE = "tollgate";

    /** What a hook annotation key is renamed to in the hook-rendering copy. */
    static final String RENAMED_HOOK_PREFIX = "rendered-as-manifest.tollgate.dev/hook";

    private static final Path CHART = RepositoryFiles.path("helm/tollgate");
    private static final Path WORK = workDirectory();
    private static final Map<String, Manifests> RENDERED = new ConcurrentHashMap<>();
    private static Path hookCopy;

    private TollgateChart() {
    }

    static Path valuesFile(String region) {
        return CHART.resolve("values-" + region + ".yaml");
    }

    /** The region's release as {@code helm template -f values-<region>.yaml} prints it, hooks left out. */
    static Manifests render(String region) {
        return RENDERED.computeIfAbsent(region, r -> Manifests.parse(template(CHART, List.of(valuesFile(r)))));
    }

    /** The region's release with its hooks, and values layered over the region's file (later wins). */
    @SafeVarargs
    static Manifests renderWithHooks(String region, Map<String, Object>... overrides) {
        return Manifests.parse(template(hookCopy(), valuesFiles(region, overrides)));
    }

    /** Renders the chart itself (no hook renaming) with the region's file and overrides. */
    @SafeVarargs
    static Manifests render(String region, Map<String, Object>... overrides) {
        return Manifests.parse(template(CHART, valuesFiles(region, overrides)));
    }

    /** Renders with only the given values over the chart's defaults; returns Helm's error message, or fails if it rendered. */
    static String renderFailure(List<Path> valuesFiles) {
        try {
            template(CHART, valuesFiles);
        } catch (IllegalStateException e) {
            return e.getMessage();
        }
        throw new AssertionError("expected the chart to refuse to render with " + valuesFiles);
    }

    /** Renders the region's file with overrides; returns Helm's error message, or fails if it rendered. */
    @SafeVarargs
    static String renderFailure(String region, Map<String, Object>... overrides) {
        return renderFailure(valuesFiles(region, overrides));
    }

    static LintResult lint(String region) {
        Path copy = copyChart("lint-" + region);
        Yaml yaml = yaml();
        Map<String, Object> defaults = yaml.load(RepositoryFiles.read("helm/tollgate/values.yaml"));
        Map<String, Object> regional = yaml.load(RepositoryFiles.read("helm/tollgate/values-" + region + ".yaml"));
        write(copy.resolve("values.yaml"), yaml.dump(coalesce(defaults, regional)));
        return new Helm(copy).lint().strict().call();
    }

    /** Writes values to a file under the work directory, for a render. */
    static Path writeValues(Map<String, Object> values) {
        try {
            Path file = Files.createTempFile(WORK, "values-", ".yaml");
            write(file, yaml().dump(values));
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String template(Path chart, List<Path> valuesFiles) {
        TemplateCommand command = new Helm(chart).template().withName(RELEASE).withNamespace(RELEASE);
        for (Path file : valuesFiles) {
            command = command.withValuesFile(file);
        }
        return command.call();
    }

    @SafeVarargs
    private static List<Path> valuesFiles(String region, Map<String, Object>... overrides) {
        return Stream.concat(Stream.of(valuesFile(region)), Stream.of(overrides).map(TollgateChart::writeValues)).toList();
    }

    private static synchronized Path hookCopy() {
        if (hookCopy == null) {
            Path copy = copyChart("with-hooks");
            try (Stream<Path> templates = Files.list(copy.resolve("templates"))) {
                for (Path template : templates.filter(p -> p.toString().endsWith(".yaml")).toList()) {
                    write(template, Files.readString(template).replace("helm.sh/hook", RENAMED_HOOK_PREFIX));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            hookCopy = copy;
        }
        return hookCopy;
    }

    private static Path copyChart(String purpose) {
        try {
            Path target = Files.createTempDirectory(WORK, purpose + "-").resolve("tollgate");
            try (Stream<Path> files = Files.walk(CHART)) {
                for (Path source : files.toList()) {
                    Files.copy(source, target.resolve(CHART.relativize(source).toString()));
                }
            }
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> coalesce(Map<String, Object> base, Map<String, Object> override) {
        Map<String, Object> merged = new LinkedHashMap<>(base);
        override.forEach((key, value) -> {
            if (value == null) {
                merged.remove(key);
            } else if (value instanceof Map<?, ?> map && merged.get(key) instanceof Map<?, ?> existing) {
                merged.put(key, coalesce((Map<String, Object>) existing, (Map<String, Object>) map));
            } else {
                merged.put(key, value);
            }
        });
        return merged;
    }

    static Yaml yaml() {
        DumperOptions dump = new DumperOptions();
        dump.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        return new Yaml(new LoaderOptions(), dump);
    }

    private static void write(Path file, String content) {
        try {
            Files.writeString(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // java.io.tmpdir is target/tmp under Maven (see the pom); it must exist before helm-java extracts its library.
    private static Path workDirectory() {
        try {
            Path tmp = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
            return Files.createTempDirectory(tmp, "tollgate-chart-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
