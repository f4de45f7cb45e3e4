package dev.tollgate.store;

import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * A script's integer array reply, held as the primitive longs the Redis reply was parsed into: what
 * {@link RedisCounterStore#run} answers. It is a {@code List<Long>} for every caller of {@link CounterStore}, and
 * equal to any list of the same values; a caller on the check's path reads it with {@link #at(List, int)}, which
 * boxes nothing.
 */
public final class IntegerReply extends AbstractList<Long> implements RandomAccess {

    private final long[] values;

    IntegerReply(long[] values) {
        this.values = values;
    }

    /** The {@code index}-th value of {@code reply}, unboxed when the store answered an {@link IntegerReply}. */
    public static long at(List<Long> reply, int index) {
        return reply instanceof IntegerReply integers ? integers.values[index] : reply.get(index);
    }

    /** The {@code index}-th value. */
    public long at(int index) {
        return values[index];
    }

    @Override
    public Long get(int index) {
        return values[index];
    }

    @Override
    public int size() {
        return values.length;
    }
}
