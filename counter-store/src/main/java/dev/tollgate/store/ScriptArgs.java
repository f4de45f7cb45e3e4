package dev.tollgate.store;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.FastThreadLocal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The arguments of one EVALSHA (or, after NOSCRIPT, EVAL): the script's SHA-1 (or body), the key count, the keys
 * and the args, written straight from the caller's strings into the connection's buffer as the bytes Lettuce's own
 * builder writes. Lettuce's builder wrapped each of them in an argument object of its own, grew a list to hold them,
 * encoded the SHA-1 and every number through a temporary array or string, and encoded the first key twice (once
 * for its slot); here nothing is allocated per argument. Encoding is stateless, so a command re-sent after a MOVED
 * or ASK redirect writes the same bytes again.
 */
final class ScriptArgs extends CommandArgs<String, String> {

    /** Bigger than any check's call; a script body sent as EVAL after NOSCRIPT is a few KB. */
    private static final int SCRATCH_LIMIT = 64 * 1024;
    private static final FastThreadLocal<byte[]> SCRATCH = new FastThreadLocal<>() {
        @Override
        protected byte[] initialValue() {
            return new byte[1024];
        }
    };

    /** The SHA-1 for EVALSHA, or the body for EVAL. */
    private final String script;
    private final List<String> keys;
    private final List<String> args;

    private ScriptArgs(String script, List<String> keys, List<String> args) {
        super(StringCodec.UTF8);
        this.script = script;
        this.keys = keys;
        this.args = args;
    }

    /** EVALSHA's arguments. */
    static ScriptArgs bySha(LuaScript script, List<String> keys, List<String> args) {
        return new ScriptArgs(script.sha1(), keys, args);
    }

    /** EVAL's arguments, after a node answered NOSCRIPT. */
    static ScriptArgs byBody(LuaScript script, List<String> keys, List<String> args) {
        return new ScriptArgs(script.body(), keys, args);
    }

    @Override
    public int count() {
        return 2 + keys.size() + args.size();
    }

    /** The key that picks the slot (and so the node): the first, as for every command Lettuce routes. */
    @Override
    public ByteBuffer getFirstEncodedKey() {
        return keys.isEmpty() ? null : ByteBuffer.wrap(keys.get(0).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Composes the whole command's arguments in a byte array of the encoding thread's (a connection's event loop) and
     * writes them to the buffer at once: a byte at a time, each write went through the pooled buffer's bounds,
     * reference-count and capacity checks, and the encoding was about a tenth of a store-bound pod's samples (JFR,
     * bench scenario 8's store-bound mix).
     */
    @Override
    public void encode(ByteBuf buf) {
        byte[] out = scratch(upperBound());
        int at = writeBulk(out, 0, script);
        out[at++] = '$';
        at = writeDecimal(out, at, decimalLength(keys.size()));
        at = crlf(out, at);
        at = writeDecimal(out, at, keys.size());
        at = crlf(out, at);
        for (int i = 0; i < keys.size(); i++) {
            at = writeBulk(out, at, keys.get(i));
        }
        for (int i = 0; i < args.size(); i++) {
            at = writeBulk(out, at, args.get(i));
        }
        buf.writeBytes(out, 0, at);
    }

    /** The most bytes {@link #encode} can write: a UTF-8 char takes at most 3 bytes, a header and its CRLFs at most 16. */
    private int upperBound() {
        long bound = 32 + 16 + 3L * script.length();
        for (int i = 0; i < keys.size(); i++) {
            bound += 16 + 3L * keys.get(i).length();
        }
        for (int i = 0; i < args.size(); i++) {
            bound += 16 + 3L * args.get(i).length();
        }
        return Math.toIntExact(bound);
    }

    /** The thread's array if it is big enough, grown up to {@link #SCRATCH_LIMIT}; an odd larger command gets its own. */
    private static byte[] scratch(int size) {
        byte[] scratch = SCRATCH.get();
        if (scratch.length >= size) {
            return scratch;
        }
        if (size > SCRATCH_LIMIT) {
            return new byte[size];
        }
        byte[] grown = new byte[Math.max(size, Math.min(SCRATCH_LIMIT, 2 * scratch.length))];
        SCRATCH.set(grown);
        return grown;
    }

    /** A bulk string: {@code $<UTF-8 length>\r\n<UTF-8 bytes>\r\n}, as Lettuce's string codec writes it. */
    private static int writeBulk(byte[] out, int at, String value) {
        int length = value.length();
        out[at++] = '$';
        if (isAscii(value)) {
            at = crlf(out, writeDecimal(out, at, length));
            for (int i = 0; i < length; i++) {
                out[at++] = (byte) value.charAt(i);
            }
        } else {
            // Netty's UTF-8, as Lettuce's codec writes it (it differs from the JDK's on unpaired surrogates): the same key
            // names the same counter as it always did
            int bytes = ByteBufUtil.utf8Bytes(value);
            at = crlf(out, writeDecimal(out, at, bytes));
            ByteBufUtil.writeUtf8(Unpooled.wrappedBuffer(out, at, 3 * length).writerIndex(0), value);
            at += bytes;
        }
        return crlf(out, at);
    }

    private static boolean isAscii(String value) {
        for (int i = 0; i < value.length(); i++) {
            if (value.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    private static int crlf(byte[] out, int at) {
        out[at] = '\r';
        out[at + 1] = '\n';
        return at + 2;
    }

    /** A non-negative count in decimal ASCII, without the string Lettuce made of it. */
    static int writeDecimal(byte[] out, int at, int value) {
        int unit = 1;
        while (value / unit >= 10) {
            unit *= 10;
        }
        for (; unit > 0; unit /= 10) {
            out[at++] = (byte) ('0' + value / unit % 10);
        }
        return at;
    }

    private static int decimalLength(int value) {
        int digits = 1;
        for (int rest = value / 10; rest > 0; rest /= 10) {
            digits++;
        }
        return digits;
    }

    @Override
    public String toCommandString() {
        return toString();
    }

    @Override
    public String toString() {
        // the SHA-1 alone when it is one; a body is long and says nothing a log line needs
        String head = script.length() == 40 ? script : "<script>";
        return head + " " + keys.size() + " key=" + keys + " value=" + args;
    }
}
