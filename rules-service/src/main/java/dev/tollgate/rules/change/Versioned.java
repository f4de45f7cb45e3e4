package dev.tollgate.rules.change;

import dev.tollgate.rules.problem.NotFoundException;

import java.util.Optional;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * One kind of versioned thing, as {@link VersionedWrites} writes it: rules, or a domain's descriptor
 * mappings. (Overrides have no version.)
 *
 * @param table    where they are stored
 * @param subject  the one under a key as a 428 or 409 names it, in lower case: "rule r1", "the descriptors of domain d"
 * @param plural   whether that name is plural, for the grammar of the 409 for one that is gone
 * @param notFound the 404 for a key nothing is stored under
 * @param created  how the history records a create; {@code replaced} and {@code deleted} likewise
 */
public record Versioned<T>(
        Table<T> table,
        UnaryOperator<String> subject,
        boolean plural,
        Function<String, NotFoundException> notFound,
        Recorded<T> created,
        Replaced<T> replaced,
        Recorded<T> deleted) {

    /** Their table: one row per key, each at a version. Whoever writes it holds the store lock. */
    public interface Table<T> {

        String key(T value);

        long version(T value);

        T withVersion(T value, long version);

        Optional<T> find(String key);

        void insert(T value);

        /** Writes {@code value} over the row at {@code expectedVersion}, and fails at another: only a writer without the lock can cause that. */
        void update(T value, long expectedVersion);

        void delete(String key);
    }

    /** A change of one value: {@code RuleChange::created}, {@code RuleChange::deleted}. */
    @FunctionalInterface
    public interface Recorded<T> {
        Change of(T value, String actor, String reason);
    }

    /** A value replaced by another: {@code RuleChange::replaced}, {@code RuleChange::modeSwitched}. */
    @FunctionalInterface
    public interface Replaced<T> {
        Change of(T before, T after, String actor, String reason);
    }
}
