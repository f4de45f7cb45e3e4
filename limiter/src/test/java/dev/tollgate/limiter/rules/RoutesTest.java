package dev.tollgate.limiter.rules;

import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A route bounded for a check by attributes keeps every rule its full spelling would have found. */
class RoutesTest {

    private final RuleIndex index = new RuleIndex(List.of(
            Rule.tokenBucket("labels", "api", 10, 20).withMatch(new Match("growth", "/v1/labels*"))));

    @Test
    void aShortRouteIsOnlyNormalized() {
        assertThat(Routes.bounded("/v1//labels/?x=1", 256)).isEqualTo("/v1/labels");
    }

    @Test
    void paddingIsDroppedBeforeTheCutSoTheMatchedPartSurvives() {
        String padded = "/v1" + "/.".repeat(200) + "//".repeat(100) + "/labels/" + "x".repeat(10);

        String bounded = Routes.bounded(padded, 32);

        assertThat(bounded).isEqualTo("/v1/labels/xxxxxxxxxx");
        assertThat(index.matching("api", "growth", bounded)).extracting(Rule::id).containsExactly("labels");
    }

    @Test
    void aLongRouteIsCutWithinItsLastSegment() {
        String bounded = Routes.bounded("/v1/labels" + "a".repeat(300), 256);

        assertThat(bounded).hasSize(256).startsWith("/v1/labelsaaa");
        assertThat(index.matching("api", "growth", bounded)).extracting(Rule::id).containsExactly("labels");
    }

    @Test
    void aCutEndingInADotSegmentOrASlashStepsBackToTheSegmentBefore() {
        assertThat(Routes.bounded("/v1/labels/..x", 13)).isEqualTo("/v1/labels");
        assertThat(Routes.bounded("/v1/labels/.x", 12)).isEqualTo("/v1/labels");
        assertThat(Routes.bounded("/v1/labels/x", 11)).isEqualTo("/v1/labels");
        assertThat(Routes.normalize(Routes.bounded("/v1/labels/..x", 13))).isEqualTo("/v1/labels");
    }
}
