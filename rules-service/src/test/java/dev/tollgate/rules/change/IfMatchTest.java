package dev.tollgate.rules.change;

import dev.tollgate.rules.problem.BadRequestException;
import dev.tollgate.rules.problem.PreconditionRequiredException;
import dev.tollgate.rules.problem.VersionConflictException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class IfMatchTest {

    @Test
    void readsQuotedBareAndWeakVersions() {
        assertThat(IfMatch.parse("\"3\"").versions()).containsExactly(3L);
        assertThat(IfMatch.parse("3").versions()).containsExactly(3L);
        assertThat(IfMatch.parse("W/\"3\"").versions()).containsExactly(3L);
        assertThat(IfMatch.parse("\"3\", \"4\"").versions()).containsExactly(3L, 4L);
    }

    @Test
    void anAbsentHeaderIsAbsent() {
        assertThat(IfMatch.parse(null).present()).isFalse();
        assertThat(IfMatch.parse("  ").present()).isFalse();
    }

    @Test
    void refusesAStarAndGarbage() {
        assertThatThrownBy(() -> IfMatch.parse("*")).isInstanceOf(PreconditionRequiredException.class);
        assertThatThrownBy(() -> IfMatch.parse("\"abc\"")).isInstanceOf(BadRequestException.class);
    }

    @Test
    void aChangeNeedsTheHeaderAndTheCurrentVersion() {
        assertThatThrownBy(() -> IfMatch.ABSENT.require("r", 2)).isInstanceOf(PreconditionRequiredException.class);
        assertThatThrownBy(() -> IfMatch.parse("\"1\"").require("r", 2))
                .isInstanceOfSatisfying(VersionConflictException.class, e -> assertThat(e.currentVersion()).isEqualTo(2));
        assertThatCode(() -> IfMatch.parse("\"2\"").require("r", 2)).doesNotThrowAnyException();
    }

    @Test
    void anOptionalHeaderMayBeLeftOutButNotStale() {
        assertThatCode(() -> IfMatch.ABSENT.checkIfPresent("r", 5)).doesNotThrowAnyException();
        assertThatThrownBy(() -> IfMatch.parse("4").checkIfPresent("r", 5)).isInstanceOf(VersionConflictException.class);
    }
}
