package dev.tollgate.store.read;

import dev.tollgate.store.key.RedisKeys;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One pod's top of hot keys and slots as it publishes it into the counter store ({@code hot_keys_publish.lua}) and
 * rules-service reads it back: the keys and slots that took most of the pod's store calls in its sketch's last one or
 * two windows, and all of the pod's store calls in the same span, so that shares can be taken over the fleet.
 *
 * <p>Written as lines of text rather than JSON so that neither side needs a mapper for it: a header
 * {@code tollgate-hot-keys 1 <calls>}, then {@code k <slot> <calls> <error> <key>} per key, hottest first, and
 * {@code s <slot> <calls>} per slot. A key is written as its hash tag (percent-encoded, see {@link RedisKeys}), which
 * holds no space or line break whatever the caller's key.
 *
 * @param calls all of the pod's store calls in the span, the listed keys' and every other's
 */
public record PodHotKeys(String pod, long calls, List<Key> keys, List<Slot> slots) {

    /** The most keys and slots a pod publishes: enough for a fleet's top, small enough for one MGET of every pod's. */
    public static final int MAX_ENTRIES = 32;
    private static final String HEADER = "tollgate-hot-keys 1 ";

    /** One key's store calls on the pod, over-counted by at most {@code error} (the sketch's bound). */
    public record Key(String key, int slot, long calls, long error) {
    }

    public record Slot(int slot, long calls) {
    }

    public PodHotKeys {
        if (keys.size() > MAX_ENTRIES || slots.size() > MAX_ENTRIES) {
            throw new IllegalArgumentException("a pod publishes at most " + MAX_ENTRIES + " keys and slots, not "
                    + keys.size() + " and " + slots.size());
        }
        keys = List.copyOf(keys);
        slots = List.copyOf(slots);
    }

    public String encode() {
        StringBuilder text = new StringBuilder(HEADER).append(calls).append('\n');
        for (Key key : keys) {
            text.append("k ").append(key.slot()).append(' ').append(key.calls()).append(' ').append(key.error())
                    .append(' ').append(RedisKeys.hashTag(key.key())).append('\n');
        }
        for (Slot slot : slots) {
            text.append("s ").append(slot.slot()).append(' ').append(slot.calls()).append('\n');
        }
        return text.toString();
    }

    /**
     * The report {@code pod} published, or empty when the text is not one (another version's, or damaged): a reader
     * then counts the pod as one that did not report, rather than failing the fleet's answer.
     */
    public static Optional<PodHotKeys> decode(String pod, String text) {
        if (text == null || !text.startsWith(HEADER)) {
            return Optional.empty();
        }
        try {
            String[] lines = text.split("\n");
            long calls = Long.parseLong(lines[0].substring(HEADER.length()).trim());
            List<Key> keys = new ArrayList<>();
            List<Slot> slots = new ArrayList<>();
            for (int i = 1; i < lines.length; i++) {
                String[] fields = lines[i].split(" ");
                if (fields[0].equals("k") && fields.length == 5) {
                    // the encoding never writes a '+', so the form decoder's reading of one as a space cannot arise
                    keys.add(new Key(URLDecoder.decode(fields[4], StandardCharsets.UTF_8), slot(fields[1]),
                            Long.parseLong(fields[2]), Long.parseLong(fields[3])));
                } else if (fields[0].equals("s") && fields.length == 3) {
                    slots.add(new Slot(slot(fields[1]), Long.parseLong(fields[2])));
                } else {
                    return Optional.empty();
                }
            }
            return Optional.of(new PodHotKeys(pod, calls, keys, slots));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static int slot(String text) {
        int slot = Integer.parseInt(text);
        if (slot < 0 || slot >= 16_384) {
            throw new IllegalArgumentException("slot " + slot);
        }
        return slot;
    }
}
