package dev.tollgate.store;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;

import java.nio.ByteBuffer;

/**
 * Parses a script's reply, a flat array of integers (or one integer), straight into a {@code long[]}: no list of
 * objects, no boxed {@code Long} per value, no second list to convert it (Lettuce's {@code ScriptOutputType.MULTI}
 * did all three). Anything else in the reply (a string, a nil, a nested array) is no integer reply: {@link #get}
 * then answers null, and the call fails, as the cast of such a value failed before.
 */
final class IntegerArrayOutput extends CommandOutput<String, String, long[]> {

    private static final long[] NONE = new long[0];

    private long[] values;
    private int size;
    private boolean array;
    private boolean other;

    IntegerArrayOutput() {
        super(StringCodec.UTF8, null);
    }

    @Override
    public void multi(int count) {
        if (array || values != null || count < 0) {
            other = true;
            return;
        }
        array = true;
        values = count == 0 ? NONE : new long[count];
    }

    @Override
    public void set(long integer) {
        if (values == null && !array) {
            // a script that answered one integer: a list of one, as before
            values = new long[] {integer};
            size = 1;
        } else if (values != null && size < values.length) {
            values[size++] = integer;
        } else {
            other = true;
        }
    }

    @Override
    public void set(ByteBuffer bytes) {
        other = true;
    }

    @Override
    public void set(double number) {
        other = true;
    }

    @Override
    public void set(boolean value) {
        other = true;
    }

    @Override
    public void multiMap(int count) {
        other = true;
    }

    @Override
    public void multiSet(int count) {
        other = true;
    }

    /** The integers, or null when the reply was anything else. */
    @Override
    public long[] get() {
        if (other || values == null || size != values.length) {
            return null;
        }
        return values;
    }
}
