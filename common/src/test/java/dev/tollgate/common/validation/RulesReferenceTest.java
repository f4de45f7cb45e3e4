package dev.tollgate.common.validation;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/rules.md's field tables are what {@link RulesReference} writes from the validator today. A bound, an
 * enum value, a default or a field changed in code without the doc fails here, so the reference a rule author
 * reads cannot lag behind what rules-service and the pods enforce. To update the doc after such a change, run
 * {@code ./mvnw -B -pl common test -Dtest=RulesReferenceTest -Dtollgate.docs.write=true} and review the diff.
 */
class RulesReferenceTest {

    @Test
    void theRulesReferenceIsWhatTheValidatorEnforces() throws IOException {
        Path doc = rulesDoc();
        String text = Files.readString(doc);
        int begin = text.indexOf(RulesReference.BEGIN);
        int end = text.indexOf(RulesReference.END);
        assertThat(begin).as("docs/rules.md holds the generated block's begin marker").isNotNegative();
        assertThat(end).as("docs/rules.md holds the generated block's end marker after its begin").isGreaterThan(begin);

        String committed = text.substring(begin, end + RulesReference.END.length());
        String generated = RulesReference.block();
        if (Boolean.getBoolean("tollgate.docs.write") && !committed.equals(generated)) {
            Files.writeString(doc, text.substring(0, begin) + generated + text.substring(end + RulesReference.END.length()));
            return;
        }
        assertThat(committed)
                .as("docs/rules.md is stale: run ./mvnw -B -pl common test -Dtest=RulesReferenceTest -Dtollgate.docs.write=true")
                .isEqualTo(generated);
    }

    // Maven runs the tests in common/, an IDE often in the root: walk up to the repository's docs/.
    private static Path rulesDoc() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path doc = dir.resolve("docs/rules.md");
            if (Files.isRegularFile(doc)) {
                return doc;
            }
        }
        throw new IllegalStateException("no docs/rules.md above " + Path.of("").toAbsolutePath());
    }
}
