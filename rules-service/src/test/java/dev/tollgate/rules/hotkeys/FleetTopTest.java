package dev.tollgate.rules.hotkeys;

import dev.tollgate.store.read.FleetHotKeys;
import dev.tollgate.store.read.PodHotKeys;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class FleetTopTest {

    private final PodHotKeys a = new PodHotKeys("a", 100,
            List.of(new PodHotKeys.Key("hot", 7, 60, 2), new PodHotKeys.Key("warm", 9, 30, 0)),
            List.of(new PodHotKeys.Slot(7, 60), new PodHotKeys.Slot(9, 40)));
    private final PodHotKeys b = new PodHotKeys("b", 100,
            List.of(new PodHotKeys.Key("hot", 7, 70, 0), new PodHotKeys.Key("cool", 3, 10, 1)),
            List.of(new PodHotKeys.Slot(7, 75), new PodHotKeys.Slot(3, 25)));

    @Test
    void sumsEachKeyOverThePodsThatListItWithItsShareOfEveryReportedCall() {
        FleetTop top = FleetTop.merge("eu", 20, new FleetHotKeys(List.of("a", "b", "c"), List.of(a, b)), 10);

        assertThat(top.podsRegistered()).isEqualTo(3);
        assertThat(top.podsReported()).isEqualTo(2);
        assertThat(top.storeCalls()).isEqualTo(200);
        assertThat(top.keys()).containsExactly(
                new FleetTop.Key("hot", 7, 130, 2, 2, 0.65),
                new FleetTop.Key("warm", 9, 30, 0, 1, 0.15),
                new FleetTop.Key("cool", 3, 10, 1, 1, 0.05));
        assertThat(top.slots()).containsExactly(
                new FleetTop.Slot(7, 135, 0.675), new FleetTop.Slot(9, 40, 0.2), new FleetTop.Slot(3, 25, 0.125));
    }

    @Test
    void keepsTheTopLimitOfEach() {
        FleetTop top = FleetTop.merge("eu", 20, new FleetHotKeys(List.of("a", "b"), List.of(a, b)), 1);

        assertThat(top.keys()).extracting(FleetTop.Key::key).containsExactly("hot");
        assertThat(top.slots()).extracting(FleetTop.Slot::slot).containsExactly(7);
    }

    @Test
    void noReportsIsEmptyWithNoSharesDividedByZero() {
        FleetTop top = FleetTop.merge("eu", 20, new FleetHotKeys(List.of("a"), List.of()), 10);

        assertThat(top.podsReported()).isZero();
        assertThat(top.keys()).isEmpty();
        assertThat(top.slots()).isEmpty();
    }
}
