package dev.tollgate.rules.change;

import dev.tollgate.rules.problem.BadRequestException;
import dev.tollgate.rules.problem.PreconditionRequiredException;
import dev.tollgate.rules.problem.VersionConflictException;

import java.util.ArrayList;
import java.util.List;

/**
 * The versions an {@code If-Match} header names. A versioned thing's ETag (a rule's, a domain's
 * descriptor mappings') is its version in quotes ({@code "3"}); a bare {@code 3} is accepted too, and so
 * is a weak {@code W/"3"}, because proxies that compress a response weaken its ETag and the client only
 * echoes what it got. {@code *} is refused: it would let a client replace a rule it never read, the lost
 * update this header exists to prevent.
 *
 * <p>Each check names the thing in lower case, as its answer says it ({@code "rule r1"},
 * {@code "the descriptors of domain d"}).
 */
public record IfMatch(List<Long> versions) {

    static final IfMatch ABSENT = new IfMatch(List.of());

    public static IfMatch parse(String header) {
        if (header == null || header.isBlank()) {
            return ABSENT;
        }
        List<Long> versions = new ArrayList<>();
        for (String part : header.split(",")) {
            String tag = part.trim();
            if (tag.equals("*")) {
                throw new PreconditionRequiredException("If-Match: * is not accepted; send the ETag (version) you read, e.g. If-Match: \"3\"");
            }
            if (tag.startsWith("W/")) {
                tag = tag.substring(2);
            }
            if (tag.length() >= 2 && tag.startsWith("\"") && tag.endsWith("\"")) {
                tag = tag.substring(1, tag.length() - 1);
            }
            try {
                versions.add(Long.parseLong(tag));
            } catch (NumberFormatException e) {
                throw new BadRequestException("If-Match must carry the rule's ETag, e.g. If-Match: \"3\"; got " + abbreviate(header));
            }
        }
        return new IfMatch(List.copyOf(versions));
    }

    public boolean present() {
        return !versions.isEmpty();
    }

    /** For a change to something stored: no header is 428, another version is 409. */
    public void require(String subject, long current) {
        if (!present()) {
            throw new PreconditionRequiredException("Changing " + subject + " needs If-Match with the version you read"
                    + " (its ETag, currently \"" + current + "\"), so that a concurrent change is not overwritten.");
        }
        checkIfPresent(subject, current);
    }

    /** For a change where the header is optional: a stale one is still a conflict. */
    public void checkIfPresent(String subject, long current) {
        if (present() && !versions.contains(current)) {
            throw new VersionConflictException(capitalized(subject) + " is at version " + current + ", not " + describe()
                    + ": it changed since you read it. Read it again and re-apply your change.", current);
        }
    }

    /**
     * For a create: a header that names a version was read from something since deleted, so the client
     * meant to change it, not to create it again (409).
     *
     * @param plural whether {@code subject} is ("the descriptors of domain d"), for the grammar of the answer
     */
    void requireNone(String subject, boolean plural) {
        if (present()) {
            throw new VersionConflictException(capitalized(subject) + (plural
                    ? " do not exist (any more): they were deleted since you read them. Create them again without If-Match."
                    : " does not exist (any more): it was deleted since you read it. Create it again without If-Match."), null);
        }
    }

    private String describe() {
        return versions.size() == 1 ? versions.get(0).toString() : versions.toString();
    }

    private static String capitalized(String text) {
        return Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }

    private static String abbreviate(String header) {
        return header.length() > 40 ? header.substring(0, 40) + "..." : header;
    }
}
