package dev.tollgate.rules.problem;

import dev.tollgate.common.validation.Violation;

import java.util.List;

/**
 * 409 {@code import_conflict}: an import would create rules whose ids are stored already with another limit
 * (the file changed since it was imported, or someone changed the rule since). Nothing was stored: an
 * import creates rules and never overwrites one, so a limit changed by hand is not undone by a file.
 * Each entry names a rule and how it differs.
 */
public final class ImportConflictException extends RuntimeException {

    private final List<Violation> conflicts;

    public ImportConflictException(List<Violation> conflicts) {
        super(conflicts.isEmpty() ? "import conflict" : conflicts.get(0).toString(), null, false, false);
        this.conflicts = List.copyOf(conflicts);
    }

    public List<Violation> conflicts() {
        return conflicts;
    }
}
