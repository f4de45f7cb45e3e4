package dev.tollgate.store;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** ScriptArgs writes the bytes Lettuce's own EVALSHA/EVAL builder writes, and routes by the same key. */
class ScriptArgsTest {

    private static final LuaScript SPEND = LuaScript.SPEND;

    @Test
    void writesWhatLettucesBuilderWrites() {
        List<String> keys = List.of("rl:{acct_7Q2}:plan", "rl:{acct_7Q2}:route");
        List<String> args = List.of("1", "50", "bucket", "5000", "1", "1000000000", "1", "", "-1", "ünï€ødé \uD83D\uDE00");
        assertSameBytes(keys, args);
    }

    @Test
    void writesUnpairedSurrogatesAsLettucesCodecDoes() {
        assertSameBytes(List.of("rl:{\uD800}:plan"), List.of("\uDC00", "a\uD83D", "\uD83Da", "\uD83D\uD83D\uDE00"));
    }

    @Test
    void writesACommandLongerThanAnyBufferItKeeps() {
        String big = "é".repeat(40_000);
        assertSameBytes(List.of("rl:{k}:plan"), List.of(big, "1"));
        assertSameBytes(List.of("rl:{k}:plan"), List.of("x".repeat(20_000), "1"));
        assertSameBytes(List.of("rl:{k}:plan"), List.of("1"));
    }

    @Test
    void writesManyKeysAndNone() {
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        for (int i = 0; i < 123; i++) {
            keys.add("rl:{k}:" + i);
            args.add(Long.toString(Long.MAX_VALUE - i));
        }
        assertSameBytes(keys, args);
        assertSameBytes(List.of(), List.of("x"));
        assertSameBytes(List.of(), List.of());
    }

    @Test
    void routesByTheFirstKeyAsLettuceDoes() {
        List<String> keys = List.of("rl:{acct_7Q2}:plan", "rl:{acct_7Q2}:route");
        assertThat(ScriptArgs.bySha(SPEND, keys, List.of()).getFirstEncodedKey())
                .isEqualTo(lettuces(SPEND.sha1(), keys, List.of()).getFirstEncodedKey());
        assertThat(ScriptArgs.bySha(SPEND, List.of(), List.of("a")).getFirstEncodedKey()).isNull();
    }

    private static void assertSameBytes(List<String> keys, List<String> args) {
        assertThat(bytes(ScriptArgs.bySha(SPEND, keys, args))).isEqualTo(bytes(lettuces(SPEND.sha1(), keys, args)));
        assertThat(bytes(ScriptArgs.byBody(SPEND, keys, args))).isEqualTo(bytes(lettuces(SPEND.body(), keys, args)));
        assertThat(ScriptArgs.bySha(SPEND, keys, args).count()).isEqualTo(lettuces(SPEND.sha1(), keys, args).count());
    }

    private static CommandArgs<String, String> lettuces(String script, List<String> keys, List<String> args) {
        return new CommandArgs<>(StringCodec.UTF8).add(script).add(keys.size())
                .addKeys(keys.toArray(String[]::new)).addValues(args.toArray(String[]::new));
    }

    private static String bytes(CommandArgs<String, String> args) {
        ByteBuf buf = Unpooled.buffer();
        args.encode(buf);
        // encoding twice (a redirect's resend) writes the same bytes again
        ByteBuf again = Unpooled.buffer();
        args.encode(again);
        assertThat(ByteBufUtil.hexDump(again)).isEqualTo(ByteBufUtil.hexDump(buf));
        return ByteBufUtil.hexDump(buf);
    }
}
