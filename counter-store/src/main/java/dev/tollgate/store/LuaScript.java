package dev.tollgate.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** One Lua script from {@code lua/<name>.lua} on the classpath, with the SHA-1 that EVALSHA calls it by. */
public record LuaScript(String name, String body, String sha1) {

    public static final LuaScript SPEND = load("spend");
    public static final LuaScript REFUND = load("refund");

    public static LuaScript load(String name) {
        String resource = "/lua/" + name + ".lua";
        try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing script " + resource);
            }
            String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return new LuaScript(name, body, sha1Of(body));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The SHA-1 by which EVALSHA names a script of this body. */
    public static String sha1Of(String body) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(body.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
