package dev.tollgate.rules.console;

import dev.tollgate.rules.hotkeys.FleetTop;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class HotKeysPageTest {

    @Test
    void printsSharesAsPercentsWithOneDecimal() {
        HotKeysPage page = HotKeysPage.of(new FleetTop("eu", 20, 2, 2, 300,
                List.of(new FleetTop.Key("acct_hot", 7, 200, 0, 2, 2.0 / 3)), List.of(new FleetTop.Slot(7, 201, 0.67))));

        assertThat(page.keys()).containsExactly(new HotKeysPage.KeyRow("acct_hot", 200, "66.7 %", 2, 7));
        assertThat(page.slots()).containsExactly(new HotKeysPage.SlotRow(7, 201, "67.0 %"));
        assertThat(page.emptyReason()).isNull();
    }

    @Test
    void saysWhetherNoPodIsThereNoneReportedOrNothingIsHot() {
        assertThat(HotKeysPage.of(new FleetTop("eu", 20, 0, 0, 0, List.of(), List.of())).emptyReason())
                .isEqualTo("No check-service pod is registered in this region's counter store.");
        assertThat(HotKeysPage.of(new FleetTop("eu", 20, 3, 0, 0, List.of(), List.of())).emptyReason())
                .isEqualTo("None of the 3 registered pods has published its hot keys in the last 30 s.");
        assertThat(HotKeysPage.of(new FleetTop("eu", 20, 3, 3, 0, List.of(), List.of())).emptyReason())
                .isEqualTo("No store calls in the last 20 s.");
    }
}
