package dev.tollgate.common.check;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class CheckRequestValidatorTest {

    private final CheckRequestValidator validator = new CheckRequestValidator(64);

    @Test
    void acceptsTheDesignsExample() {
        CheckRequest request = new CheckRequest("public-api", List.of(
                CheckEntry.of("growth-global", "acct_7Q2", 1),
                CheckEntry.of("labels-route", "acct_7Q2", 1)));
        assertThat(validator.problems(request)).isEmpty();
    }

    @Test
    void acceptsKeysHoldingBracesUnderscoresAndUnicode() {
        CheckRequest request = new CheckRequest("d", List.of(CheckEntry.of("r", "{other}_ü_名前", 1)));
        assertThat(validator.problems(request)).isEmpty();
    }

    @Test
    void acceptsAMissingCostAsOne() {
        CheckEntry entry = new CheckEntry("r", "k", null);
        assertThat(validator.problems(new CheckRequest("d", List.of(entry)))).isEmpty();
        assertThat(entry.costValue()).isEqualTo(1);
    }

    @Test
    void refusesAMissingDomain() {
        assertProblem(new CheckRequest(" ", List.of(CheckEntry.of("r", "k", 1))), "domain");
    }

    @Test
    void refusesNoEntries() {
        assertProblem(new CheckRequest("d", List.of()), "entries");
        assertProblem(new CheckRequest("d", null), "entries");
    }

    @Test
    void refusesMoreEntriesThanConfigured() {
        List<CheckEntry> entries = new ArrayList<>();
        for (int i = 0; i < 65; i++) {
            entries.add(CheckEntry.of("r", "k" + i, 1));
        }
        assertProblem(new CheckRequest("d", entries), "entries");
        assertThat(validator.problems(new CheckRequest("d", entries.subList(0, 64)))).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "1.5", "1e-3", "2147483648"})
    void refusesACostThatIsNoWholeNumberFromZeroUp(String cost) {
        assertProblem(new CheckRequest("d", List.of(new CheckEntry("r", "k", new BigDecimal(cost)))), "entries[0].cost");
    }

    /**
     * Each of these once reached {@code toPlainString()}, which for a scale of 999,999,999 builds a
     * billion-character string. They must be refused without formatting, and quickly.
     */
    @ParameterizedTest
    @ValueSource(strings = {"1e-999999999", "-1e999999999", "1e999999999", "-1e-999999999", "1e-2147483647", "1e2147483647",
            "1e10", "2147483647.0000000000001", "0.0000000000000", "1.0000000000001"})
    void refusesAbsurdCostsWithoutFormattingThem(String cost) {
        CheckRequest request = new CheckRequest("d", List.of(new CheckEntry("r", "k", new BigDecimal(cost))));
        // only the validation is timed, not AssertJ's first use in a JVM, and against a bound that tells microseconds
        // from the billion-character string (seconds and gigabytes), not from a busy machine's pause
        long started = System.nanoTime();
        List<CheckProblem> problems = validator.problems(request);
        long took = System.nanoTime() - started;

        assertThat(problems).singleElement().satisfies(p -> {
            assertThat(p.path()).isEqualTo("entries[0].cost");
            assertThat(p.entries()).containsExactly(0);
            assertThat(p.message()).isEqualTo("must be an integer between 0 (look without spending) and the rule's max_cost");
            assertThat(p.describe()).hasSizeLessThan(100);
        });
        assertThat(took).isLessThan(1_000_000_000L);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "0.0", "1", "2147483647", "2147483647.000000000000", "2E+3", "1.000000000000", "100.0"})
    void acceptsEveryWayOfWritingAnIntegerInRange(String cost) {
        CheckEntry entry = new CheckEntry("r", "k", new BigDecimal(cost));
        assertThat(validator.problems(new CheckRequest("d", List.of(entry)))).isEmpty();
        assertThat(entry.costValue()).isEqualTo(new BigDecimal(cost).intValueExact());
    }

    @Test
    void acceptsAnIntegralCostWrittenWithAFraction() {
        CheckEntry entry = new CheckEntry("r", "k", new BigDecimal("2.0"));
        assertThat(validator.problems(new CheckRequest("d", List.of(entry)))).isEmpty();
        assertThat(entry.costValue()).isEqualTo(2);
    }

    @Test
    void refusesAnEmptyKey() {
        assertProblem(new CheckRequest("d", List.of(CheckEntry.of("r", "", 1))), "entries[0].key");
    }

    @Test
    void refusesAKeyOverTwoHundredFiftySixBytes() {
        String fits = "a".repeat(256);
        assertThat(validator.problems(new CheckRequest("d", List.of(CheckEntry.of("r", fits, 1))))).isEmpty();
        assertProblem(new CheckRequest("d", List.of(CheckEntry.of("r", fits + "a", 1))), "entries[0].key");
        // 86 three-byte characters: 258 bytes in UTF-8, though only 86 chars
        assertProblem(new CheckRequest("d", List.of(CheckEntry.of("r", "名".repeat(86), 1))), "entries[0].key");
    }

    @Test
    void refusesControlCharactersInAKey() {
        assertProblem(new CheckRequest("d", List.of(CheckEntry.of("r", "a\nb", 1))), "entries[0].key");
        assertProblem(new CheckRequest("d", List.of(CheckEntry.of("r", "a\u0000b", 1))), "entries[0].key");
    }

    @Test
    void refusesALoneSurrogate() {
        assertProblem(new CheckRequest("d", List.of(CheckEntry.of("r", "a\uD800b", 1))), "entries[0].key");
    }

    @Test
    void refusesAMissingRule() {
        assertProblem(new CheckRequest("d", List.of(CheckEntry.of(null, "k", 1))), "entries[0].rule");
    }

    @Test
    void namesEveryProblemAtOnce() {
        CheckRequest request = new CheckRequest("", List.of(CheckEntry.of("", "", -1)));
        assertThat(validator.problems(request)).extracting(CheckProblem::path).containsExactly("domain", "entries[0].rule", "entries[0].key", "entries[0].cost");
    }

    private void assertProblem(CheckRequest request, String field) {
        assertThat(validator.problems(request)).extracting(CheckProblem::path).contains(field);
    }
}
