package dev.tollgate.rules.console;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

class RateChartTest {

    @Test
    void drawsOneLinePerRuleScaledToANiceAxisTop() {
        TreeMap<Long, Map<String, Double>> windows = new TreeMap<>();
        windows.put(1_000L, Map.of("growth-global", 0.0));
        windows.put(1_010L, Map.of("growth-global", 7.5));
        windows.put(1_020L, Map.of("growth-global", 15.0, "labels-route", 2.0));

        RateChart chart = RateChart.of(windows, List.of("growth-global", "labels-route"), 10);

        assertThat(chart.lines()).extracting(RateChart.Line::ruleId).containsExactly("growth-global", "labels-route");
        assertThat(chart.yTicks().get(4).label()).as("axis top").isEqualTo("20/s");
        // x from the left margin (48) to the right one (628); y over a 146 px plot from 10: 15/s of 20/s at 10 + 146/4
        assertThat(chart.lines().get(0).points()).isEqualTo("48.0,156.0 338.0,101.3 628.0,46.5");
        assertThat(chart.lines().get(0).latest()).isEqualTo("15/s");
        assertThat(chart.xTicks()).extracting(RateChart.Tick::label).contains("-20 s", "now");
        assertThat(chart.summary()).contains("over the last 30 s").contains("growth-global 15/s, labels-route 2/s");
    }

    @Test
    void anIdleKeyStillHasAnAxis() {
        TreeMap<Long, Map<String, Double>> windows = new TreeMap<>();
        windows.put(1_000L, Map.of());

        RateChart chart = RateChart.of(windows, List.of(), 10);

        assertThat(chart.lines()).isEmpty();
        assertThat(chart.yTicks().get(4).label()).isEqualTo("1/s");
    }

    @Test
    void axisTopsAreOneTwoOrFiveTimesAPowerOfTen() {
        assertThat(RateChart.niceCeiling(0.2)).isEqualTo(1);
        assertThat(RateChart.niceCeiling(1.5)).isEqualTo(2);
        assertThat(RateChart.niceCeiling(42)).isEqualTo(50);
        assertThat(RateChart.niceCeiling(700)).isEqualTo(1000);
    }

    @Test
    void ratesReadAtAGlance() {
        assertThat(RateChart.rate(0)).isEqualTo("0/s");
        assertThat(RateChart.rate(7.66)).isEqualTo("7.7/s");
        assertThat(RateChart.rate(42.4)).isEqualTo("42/s");
    }
}
