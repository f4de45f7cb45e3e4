package dev.tollgate.rules.change;

import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionOperations;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * How every write reaches the store. {@link #locked} runs it in one transaction that takes the store
 * lock before it reads anything, so that a check of what is stored cannot race the write after it, and
 * the row, its history and the revision commit together or not at all. Inside that, a versioned thing
 * is written with {@link #put}, {@link #edit} or {@link #delete}: the version a client read, named in
 * {@code If-Match}, must still be the stored one, and each write stores the next version. Overrides,
 * which have no version, take only the lock.
 */
@Component
public class VersionedWrites {

    /** What a write left stored, and whether it created it; a write that changed nothing answers what was there. */
    public record Written<T>(T value, boolean created) {
    }

    private final ChangeLog changes;
    private final TransactionOperations transactions;

    VersionedWrites(ChangeLog changes, TransactionOperations transactions) {
        this.changes = changes;
        this.transactions = transactions;
    }

    /**
     * Runs {@code write} in one transaction that holds the store lock; inside another {@code locked} write,
     * as part of it, since the lock is held until that one's transaction ends.
     */
    public <R> R locked(Supplier<R> write) {
        if (TransactionSynchronizationManager.hasResource(this)) {
            return write.get();
        }
        return inTransaction(write, false);
    }

    /**
     * Runs {@code write} as {@link #locked} does, answers what it answered, and rolls all of it back: a dry
     * run that takes every check and every write of the real one, so it cannot answer otherwise. Nothing of it
     * is seen: the rows, the history and the revision go with the rollback, and {@link StoreChanged}
     * listeners run only after a commit. Not inside another write, whose changes it would roll back too.
     */
    public <R> R rehearsed(Supplier<R> write) {
        if (TransactionSynchronizationManager.hasResource(this)) {
            throw new IllegalStateException("a rehearsal cannot run inside a write: it would roll that write back with it");
        }
        return inTransaction(write, true);
    }

    private <R> R inTransaction(Supplier<R> write, boolean rollBack) {
        return transactions.execute(tx -> {
            if (rollBack) {
                tx.setRollbackOnly();
            }
            changes.lock();
            TransactionSynchronizationManager.bindResource(this, Boolean.TRUE);
            try {
                return write.get();
            } finally {
                TransactionSynchronizationManager.unbindResource(this);
            }
        });
    }

    public void locked(Runnable write) {
        locked(() -> {
            write.run();
            return null;
        });
    }

    /**
     * Creates {@code candidate} at version 1 when nothing is stored under its key, else writes it over what
     * is as the next version. A create takes no {@code If-Match}. A replace needs the stored version in it;
     * then {@code beforeReplace} may still refuse, and a candidate that differs only in its version writes
     * nothing. A check that must come before the read runs first in an enclosing {@link #locked}.
     */
    public <T> Written<T> put(Versioned<T> kind, T candidate, IfMatch ifMatch, Consumer<T> beforeReplace, String actor, String reason) {
        return locked(() -> putLocked(kind, candidate, ifMatch, beforeReplace, actor, reason));
    }

    public <T> Written<T> put(Versioned<T> kind, T candidate, IfMatch ifMatch, String actor, String reason) {
        return put(kind, candidate, ifMatch, existing -> {
        }, actor, reason);
    }

    private <T> Written<T> putLocked(Versioned<T> kind, T candidate, IfMatch ifMatch, Consumer<T> beforeReplace, String actor, String reason) {
        Versioned.Table<T> table = kind.table();
        String key = table.key(candidate);
        T existing = table.find(key).orElse(null);
        if (existing == null) {
            ifMatch.requireNone(kind.subject().apply(key), kind.plural());
            T created = table.withVersion(candidate, 1);
            table.insert(created);
            changes.record(kind.created().of(created, actor, reason));
            return new Written<>(created, true);
        }
        long version = table.version(existing);
        ifMatch.require(kind.subject().apply(key), version);
        beforeReplace.accept(existing);
        if (table.withVersion(candidate, version).equals(existing)) {
            return new Written<>(existing, false);
        }
        return new Written<>(replace(kind, existing, candidate, kind.replaced(), actor, reason), false);
    }

    /**
     * Writes {@code edit} of what is stored under {@code key} as its next version, unless it changes nothing.
     * {@code If-Match} is optional: an edit that sets a value, rather than computing one from what it read,
     * is safe to repeat; a stale one is still refused.
     */
    public <T> T edit(Versioned<T> kind, String key, IfMatch ifMatch, UnaryOperator<T> edit, Versioned.Replaced<T> history,
                      String actor, String reason) {
        return locked(() -> {
            T existing = stored(kind, key);
            ifMatch.checkIfPresent(kind.subject().apply(key), kind.table().version(existing));
            T edited = edit.apply(existing);
            if (edited.equals(existing)) {
                return existing;
            }
            return replace(kind, existing, edited, history, actor, reason);
        });
    }

    /**
     * Deletes what is stored under {@code key}, at the version {@code If-Match} names, once
     * {@code beforeDelete} lets it.
     */
    public <T> void delete(Versioned<T> kind, String key, IfMatch ifMatch, Consumer<T> beforeDelete, String actor, String reason) {
        locked(() -> {
            T existing = stored(kind, key);
            ifMatch.require(kind.subject().apply(key), kind.table().version(existing));
            beforeDelete.accept(existing);
            kind.table().delete(key);
            changes.record(kind.deleted().of(existing, actor, reason));
        });
    }

    public <T> void delete(Versioned<T> kind, String key, IfMatch ifMatch, String actor, String reason) {
        delete(kind, key, ifMatch, existing -> {
        }, actor, reason);
    }

    private <T> T stored(Versioned<T> kind, String key) {
        return kind.table().find(key).orElseThrow(() -> kind.notFound().apply(key));
    }

    private <T> T replace(Versioned<T> kind, T existing, T replacement, Versioned.Replaced<T> history, String actor, String reason) {
        long version = kind.table().version(existing);
        T replaced = kind.table().withVersion(replacement, version + 1);
        kind.table().update(replaced, version);
        changes.record(history.of(existing, replaced, actor, reason));
        return replaced;
    }
}
