package dev.tollgate.store;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

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

    private static final byte[] CRLF = "\r\n".getBytes(StandardCharsets.US_ASCII);

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

    @Override
    public void encode(ByteBuf buf) {
        writeBulk(buf, script);
        int digits = decimalLength(keys.size());
        buf.writeByte('$');
        writeDecimal(buf, digits);
        buf.writeBytes(CRLF);
        writeDecimal(buf, keys.size());
        buf.writeBytes(CRLF);
        for (int i = 0; i < keys.size(); i++) {
            writeBulk(buf, keys.get(i));
        }
        for (int i = 0; i < args.size(); i++) {
            writeBulk(buf, args.get(i));
        }
    }

    /** A bulk string: {@code $<UTF-8 length>\r\n<UTF-8 bytes>\r\n}, as Lettuce's string codec writes it. */
    private static void writeBulk(ByteBuf buf, String value) {
        buf.writeByte('$');
        writeDecimal(buf, ByteBufUtil.utf8Bytes(value));
        buf.writeBytes(CRLF);
        ByteBufUtil.writeUtf8(buf, value);
        buf.writeBytes(CRLF);
    }

    /** A non-negative count in decimal ASCII, without the string Lettuce made of it. */
    static void writeDecimal(ByteBuf buf, int value) {
        int unit = 1;
        while (value / unit >= 10) {
            unit *= 10;
        }
        for (; unit > 0; unit /= 10) {
            buf.writeByte('0' + value / unit % 10);
        }
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
