package dev.tollgate.rules.ascode;

import dev.tollgate.rules.problem.BadRequestException;
import dev.tollgate.rules.problem.PreconditionRequiredException;
import dev.tollgate.rules.problem.VersionConflictException;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The digests an apply's {@code If-Match} names: the domain must be stored as one of them, or the apply is refused
 * (409 {@code version_conflict}, as every other {@code If-Match} of this API), so that two CI jobs that each diffed
 * the same state cannot both apply over it. A domain has no version of its own (its rules and its mapping each
 * have one), so its {@code ETag} is the digest of its canonical form: what a file computes offline too. Optional:
 * an apply without it makes the domain what the file says, whatever it was. {@code *} is refused, as elsewhere.
 */
record ExpectedDigest(List<String> digests) {

    private static final Pattern DIGEST = Pattern.compile("[0-9a-f]{64}");

    static ExpectedDigest parse(String header) {
        List<String> digests = new ArrayList<>();
        if (header == null || header.isBlank()) {
            return new ExpectedDigest(digests);
        }
        for (String part : header.split(",")) {
            String tag = part.trim();
            if (tag.equals("*")) {
                throw new PreconditionRequiredException("If-Match: * is not accepted; send the digest (ETag) of the domain you diffed,"
                        + " as GET /v1/config:export or a dry run's digest_before gives it");
            }
            tag = tag.startsWith("W/") ? tag.substring(2) : tag;
            tag = tag.length() >= 2 && tag.startsWith("\"") && tag.endsWith("\"") ? tag.substring(1, tag.length() - 1) : tag;
            if (!DIGEST.matcher(tag).matches()) {
                throw new BadRequestException("If-Match must carry the domain's digest (64 lower-case hex digits, quoted), as"
                        + " GET /v1/config:export answers it in its ETag");
            }
            digests.add(tag);
        }
        return new ExpectedDigest(List.copyOf(digests));
    }

    void check(String domain, String current) {
        if (!digests.isEmpty() && !digests.contains(current)) {
            throw new VersionConflictException("Domain " + domain + " changed since you read it: it is stored as digest " + current
                    + ", not " + (digests.size() == 1 ? digests.get(0) : digests) + ". Diff again and apply what you see.", null);
        }
    }
}
