package dev.tollgate.rules.descriptor;

import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.validation.DescriptorValidator;
import dev.tollgate.common.validation.RuleValidator;
import dev.tollgate.common.validation.Violation;
import dev.tollgate.rules.change.DescriptorChange;
import dev.tollgate.rules.change.IfMatch;
import dev.tollgate.rules.change.Versioned;
import dev.tollgate.rules.change.VersionedWrites;
import dev.tollgate.rules.change.VersionedWrites.Written;
import dev.tollgate.rules.problem.InvalidDescriptorsException;
import dev.tollgate.rules.problem.NotFoundException;
import dev.tollgate.rules.rule.RuleRepository;
import org.springframework.stereotype.Component;

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
public class DescriptorCatalog {

    private final DescriptorRepository descriptors;
    private final RuleRepository rules;
    private final VersionedWrites writes;
    private final Versioned<DescriptorDomain> versioned;
    private final DescriptorValidator validator = new DescriptorValidator();
    private final RuleValidator reasons = new RuleValidator();

    DescriptorCatalog(DescriptorRepository descriptors, RuleRepository rules, VersionedWrites writes) {
        this.descriptors = descriptors;
        this.rules = rules;
        this.writes = writes;
        this.versioned = new Versioned<>(descriptors, domain -> "the descriptors of domain " + domain, true, DescriptorCatalog::notFound,
                DescriptorChange::created, DescriptorChange::replaced, DescriptorChange::deleted);
    }

    List<DescriptorDomain> list() {
        return descriptors.findAll();
    }

    DescriptorDomain get(String domain) {
        requireDomainShape(domain);
        return descriptors.find(domain).orElseThrow(() -> notFound(domain));
    }

    /** Creates the domain's mappings (no {@code If-Match}) or replaces them (with the current version in {@code If-Match}). */
    public Written<DescriptorDomain> put(DescriptorDomain candidate, IfMatch ifMatch, String actor, String reason) {
        List<Violation> badReason = reasons.validateReason(reason);
        if (!badReason.isEmpty()) {
            throw new InvalidDescriptorsException(badReason);
        }
        return writes.locked(() -> {
            Map<String, Rule> byId = rules.findAll(null).stream().collect(Collectors.toMap(Rule::id, Function.identity()));
            List<Violation> violations = validator.validate(candidate, byId);
            if (!violations.isEmpty()) {
                throw new InvalidDescriptorsException(violations);
            }
            return writes.put(versioned, candidate, ifMatch, actor, reason);
        });
    }

    public void delete(String domain, IfMatch ifMatch, String actor, String reason) {
        requireDomainShape(domain);
        List<Violation> violations = reasons.validateReason(reason);
        if (!violations.isEmpty()) {
            throw new InvalidDescriptorsException(violations);
        }
        writes.delete(versioned, domain, ifMatch, actor, reason);
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
