package dev.tollgate.bench.wire;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A scrape of {@code /actuator/prometheus} (the text format, version 0.0.4), read into its samples: a name, its labels
 * and a value. Comments ({@code # HELP}, {@code # TYPE}) are skipped.
 */
public final class PrometheusText {

    private static final Pattern LINE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{([^}]*)})? ([-+0-9.eE]+|NaN|[+-]Inf)(?: \\d+)?$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    /** One sample of one series. */
    public record Sample(String name, Map<String, String> labels, double value) {
    }

    private final List<Sample> samples;

    private PrometheusText(List<Sample> samples) {
        this.samples = samples;
    }

    public static PrometheusText parse(String text) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            Matcher m = LINE.matcher(line.trim());
            if (!m.matches()) {
                continue;
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(2) != null) {
                Matcher label = LABEL.matcher(m.group(2));
                while (label.find()) {
                    labels.put(label.group(1), label.group(2));
                }
            }
            samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(3).replace("Inf", "Infinity"))));
        }
        return new PrometheusText(List.copyOf(samples));
    }

    public List<Sample> samples() {
        return samples;
    }

    /** The sum of every sample of {@code name} whose labels pass {@code labels}; empty when there is none. */
    public OptionalDouble sum(String name, Predicate<Map<String, String>> labels) {
        double sum = 0;
        boolean found = false;
        for (Sample sample : samples) {
            if (sample.name().equals(name) && labels.test(sample.labels())) {
                sum += sample.value();
                found = true;
            }
        }
        return found ? OptionalDouble.of(sum) : OptionalDouble.empty();
    }

    public OptionalDouble sum(String name) {
        return sum(name, labels -> true);
    }

    /** The sum of {@code name}'s samples by the value of one label, in the label's order. */
    public Map<String, Double> sumBy(String name, String label) {
        Map<String, Double> by = new TreeMap<>();
        for (Sample sample : samples) {
            if (sample.name().equals(name)) {
                by.merge(sample.labels().getOrDefault(label, ""), sample.value(), Double::sum);
            }
        }
        return by;
    }
}
