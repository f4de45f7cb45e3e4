package dev.tollgate.rules.rule;

import dev.tollgate.rules.problem.BadRequestException;
import dev.tollgate.rules.problem.PreconditionRequiredException;
import dev.tollgate.rules.problem.VersionConflictException;

import java.util.ArrayList;
import java.util.List;

/**
 * The versions an {@code If-Match} header names. A rule's ETag is its version in quotes ({@code "3"});
 * a bare {@code 3} is accepted too, and so is a weak {@code W/"3"}, because proxies that compress a
 * response weaken its ETag and the client only echoes what it got. {@code *} is refused: it would let a
 * client replace a rule it never read, the lost update this header exists to prevent.
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

    /** For a change to an existing rule: no header is 428, another version is 409. */
    void require(String ruleId, long current) {
        requireFor("rule " + ruleId, current);
    }

    /** For a change where the header is optional: a stale one is still a conflict. */
    void checkIfPresent(String ruleId, long current) {
        checkIfPresentFor("rule " + ruleId, current);
    }

    /** {@link #require} for any versioned thing, named in lower case ("the descriptors of domain d"). */
    public void requireFor(String subject, long current) {
        if (!present()) {
            throw new PreconditionRequiredException("Changing " + subject + " needs If-Match with the version you read"
                    + " (its ETag, currently \"" + current + "\"), so that a concurrent change is not overwritten.");
        }
        checkIfPresentFor(subject, current);
    }

    public void checkIfPresentFor(String subject, long current) {
        if (present() && !versions.contains(current)) {
            throw new VersionConflictException(Character.toUpperCase(subject.charAt(0)) + subject.substring(1) + " is at version "
                    + current + ", not " + describe() + ": it changed since you read it. Read it again and re-apply your change.", current);
        }
    }

    private String describe() {
        return versions.size() == 1 ? versions.get(0).toString() : versions.toString();
    }

    private static String abbreviate(String header) {
        return header.length() > 40 ? header.substring(0, 40) + "..." : header;
    }
}
