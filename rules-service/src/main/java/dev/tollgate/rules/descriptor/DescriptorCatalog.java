package dev.tollgate.rules.descriptor;

import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.validation.DescriptorValidator;
import dev.tollgate.common.validation.RuleValidator;
import dev.tollgate.common.validation.Violation;
import dev.tollgate.rules.change.ChangeLog;
import dev.tollgate.rules.change.DescriptorChange;
import dev.tollgate.rules.problem.InvalidDescriptorsException;
import dev.tollgate.rules.problem.NotFoundException;
import dev.tollgate.rules.problem.VersionConflictException;
import dev.tollgate.rules.rule.IfMatch;
import dev.tollgate.rules.rule.RuleRepository;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionOperations;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Reads and writes a domain's descriptor mappings. A write takes the store lock first, then validates
 * against the rules as they are under that lock: a rule deleted a moment before cannot slip into a
 * mapping, and no pod is ever sent a mapping that names a rule it does not hold (it would refuse the
 * whole snapshot).
 */
@Component
class DescriptorCatalog {

    private final DescriptorRepository descriptors;
    private final RuleRepository rules;
    private final ChangeLog changes;
    private final DescriptorValidator validator = new DescriptorValidator();
    private final RuleValidator reasons = new RuleValidator();
    private final TransactionOperations transactions;

    DescriptorCatalog(DescriptorRepository descriptors, RuleRepository rules, ChangeLog changes, TransactionOperations transactions) {
        this.descriptors = descriptors;
        this.rules = rules;
        this.changes = changes;
        this.transactions = transactions;
    }

    record Written(DescriptorDomain mapping, boolean created) {
    }

    List<DescriptorDomain> list() {
        return descriptors.findAll();
    }

    DescriptorDomain get(String domain) {
        requireDomainShape(domain);
        return descriptors.find(domain).orElseThrow(() -> notFound(domain));
    }

    /** Creates the domain's mappings (no {@code If-Match}) or replaces them (with the current version in {@code If-Match}). */
    Written put(DescriptorDomain candidate, IfMatch ifMatch, String actor, String reason) {
        List<Violation> badReason = reasons.validateReason(reason);
        if (!badReason.isEmpty()) {
            throw new InvalidDescriptorsException(badReason);
        }
        return transactions.execute(tx -> {
            changes.lock();
            Map<String, Rule> byId = rules.findAll(null).stream().collect(Collectors.toMap(Rule::id, Function.identity()));
            List<Violation> violations = validator.validate(candidate, byId);
            if (!violations.isEmpty()) {
                throw new InvalidDescriptorsException(violations);
            }
            String subject = subject(candidate.domain());
            DescriptorDomain existing = descriptors.find(candidate.domain()).orElse(null);
            if (existing == null) {
                if (ifMatch.present()) {
                    throw new VersionConflictException(capitalized(subject) + " do not exist (any more): they were deleted"
                            + " since you read them. Create them again without If-Match.", null);
                }
                DescriptorDomain created = candidate.withVersion(1);
                descriptors.insert(created);
                changes.record(DescriptorChange.created(created, actor, reason));
                return new Written(created, true);
            }
            ifMatch.requireFor(subject, existing.version());
            if (existing.descriptors().equals(candidate.descriptors())) {
                return new Written(existing, false);
            }
            DescriptorDomain replaced = candidate.withVersion(existing.version() + 1);
            descriptors.update(replaced, existing.version());
            changes.record(DescriptorChange.replaced(existing, replaced, actor, reason));
            return new Written(replaced, false);
        });
    }

    void delete(String domain, IfMatch ifMatch, String actor, String reason) {
        requireDomainShape(domain);
        List<Violation> violations = reasons.validateReason(reason);
        if (!violations.isEmpty()) {
            throw new InvalidDescriptorsException(violations);
        }
        transactions.executeWithoutResult(tx -> {
            changes.lock();
            DescriptorDomain existing = descriptors.find(domain).orElseThrow(() -> notFound(domain));
            ifMatch.requireFor(subject(domain), existing.version());
            descriptors.delete(domain);
            changes.record(DescriptorChange.deleted(existing, actor, reason));
        });
    }

    private static String subject(String domain) {
        return "the descriptors of domain " + domain;
    }

    private static String capitalized(String text) {
        return Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }

    /** No stored domain is blank or holds control characters, so such a path is a 404 without asking PostgreSQL (which refuses a NUL). */
    private static void requireDomainShape(String domain) {
        if (domain == null || domain.isBlank() || !RuleValidator.isStorableText(domain, RuleValidator.MAX_DOMAIN)) {
            throw new NotFoundException("No descriptors for that domain: a domain is 1-" + RuleValidator.MAX_DOMAIN
                    + " characters without control characters.");
        }
    }

    private static NotFoundException notFound(String domain) {
        return new NotFoundException("No descriptors for domain " + domain + ".");
    }
}
