package dev.tollgate.store.script;

import dev.tollgate.store.LuaScript;

import java.util.List;

/** One atomic script call over keys that share a hash tag. */
public record ScriptCall(LuaScript script, List<String> keys, List<String> args) {
}
