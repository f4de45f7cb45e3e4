package dev.tollgate.common.check;

import java.util.List;
import java.util.function.IntFunction;

/**
 * One thing wrong with a check request, as data: the entries it is about (none for the request as a whole),
 * the field within them, and what to change. An adapter names the entries as its own caller knows them
 * (Envoy's caller sent descriptors, not entries) without reading the message.
 *
 * @param entries the indexes of the entries the problem is about, in order; empty when it is the request's
 * @param field   the field within those entries ({@code cost}), or of the request ({@code domain}); empty
 *                for the entry (or the request) as a whole
 * @param message what is wrong, worded to follow the field's name; it names no entry by index
 */
public record CheckProblem(List<Integer> entries, String field, String message) {

    public CheckProblem {
        entries = List.copyOf(entries);
    }

    public static CheckProblem ofRequest(String field, String message) {
        return new CheckProblem(List.of(), field, message);
    }

    public static CheckProblem ofEntry(int entry, String field, String message) {
        return new CheckProblem(List.of(entry), field, message);
    }

    /** The field's path in the request as sent: {@code entries[2].cost}, {@code domain}. */
    public String path() {
        return path(CheckProblem::entryName);
    }

    /**
     * The field's path with the entry named by {@code entryName} (the last of them when the problem is about
     * several: the one whose cost tipped a sum over).
     */
    public String path(IntFunction<String> entryName) {
        if (entries.isEmpty()) {
            return field;
        }
        String entry = entryName.apply(entries.get(entries.size() - 1));
        return field.isEmpty() ? entry : entry + "." + field;
    }

    /** The problem in one line, for a problem's {@code detail}: {@code entries[2].cost: must be ...}. */
    public String describe() {
        return path() + ": " + message;
    }

    private static String entryName(int entry) {
        return "entries[" + entry + "]";
    }
}
