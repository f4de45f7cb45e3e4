package dev.tollgate.testsupport.fuzz;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Tuple;

import static dev.tollgate.testsupport.fuzz.FuzzJson.string;

/**
 * The hostile JSON values both HTTP fuzzers send, whatever field they aim at; each API adds a few literals
 * of its own (a body fragment it knows, an injection string it stores).
 */
public final class FuzzValues {

    private FuzzValues() {
    }

    /** Any characters at all, lone surrogates and controls included, plus {@code extras} now and then. */
    public static Arbitrary<String> text(String... extras) {
        String[] samples = {"\uD83D\uDE00", "名前", "ü", "e\u0301", "\u202Eabc", "%00", "{x}", "\\", "\""};
        String[] all = new String[samples.length + extras.length];
        System.arraycopy(samples, 0, all, 0, samples.length);
        System.arraycopy(extras, 0, all, samples.length, extras.length);
        return Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.strings().all().ofMinLength(0).ofMaxLength(24)),
                Tuple.of(2, Arbitraries.strings().withCharRange('\uD800', '\uDFFF').ofMinLength(1).ofMaxLength(4)),
                Tuple.of(2, Arbitraries.strings().withCharRange('\u0000', '\u001F').withChars('\u007F', '\u0085', '\u2028', '\uFEFF')
                        .ofMinLength(1).ofMaxLength(6)),
                Tuple.of(1, Arbitraries.of(all)));
    }

    /** A value of any JSON type, shallowly nested; {@code fragment} is an object the API would recognise. */
    public static Arbitrary<String> anyValue(String fragment, Arbitrary<String> text) {
        return Arbitraries.oneOf(
                Arbitraries.of("null", "true", "false", "{}", "[]", "[1,2]", "{\"a\":1}", "\"\"", "[null]", "[[[]]]", fragment),
                Arbitraries.integers().map(String::valueOf),
                Arbitraries.doubles().map(String::valueOf).filter(d -> !d.contains("N") && !d.contains("I")),
                text.map(s -> string(s, false)));
    }
}
