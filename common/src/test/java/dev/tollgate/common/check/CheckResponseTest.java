package dev.tollgate.common.check;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class CheckResponseTest {

    @Test
    void theStrictestEntryDecides() {
        CheckResponse response = CheckResponse.of(List.of(
                EntryResult.allowed("a", 5, 100),
                EntryResult.denied("b", 0, 900, 80)));
        assertThat(response.verdict()).isEqualTo(Verdict.DENY);
    }

    @Test
    void aShadowDenyNeverDenies() {
        CheckResponse response = CheckResponse.of(List.of(
                EntryResult.allowed("a", 5, 100),
                EntryResult.denied("b", 0, 900, 80).asShadow()));
        assertThat(response.verdict()).isEqualTo(Verdict.ALLOW);
        assertThat(response.entries().get(1).verdict()).isEqualTo(Verdict.DENY);
    }

    @Test
    void anUnknownRuleIsAllowedAndFlagged() {
        CheckResponse response = CheckResponse.of(List.of(EntryResult.unknown("nope")));
        assertThat(response.allowed()).isTrue();
        assertThat(response.entries().get(0).unknownRule()).isTrue();
    }
}
