package dev.tollgate.testsupport.redis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * One node's opinion of the cluster, parsed from {@code CLUSTER NODES}. Opinions differ while gossip
 * converges, so callers compare the views of several nodes rather than trusting one.
 */
record ClusterView(List<Entry> entries) {

    record Entry(String id, int port, Set<String> flags, String primaryId, List<SlotRange> slots) {

        boolean isPrimary() {
            return flags.contains("master");
        }

        boolean isMyself() {
            return flags.contains("myself");
        }

        /** Flagged failed by the cluster ({@code fail}) or suspected by this node ({@code fail?}). */
        boolean isFailing() {
            return flags.contains("fail") || flags.contains("fail?");
        }

        /** Not yet a full member: the MEET handshake is still running or the address is unknown. */
        boolean isJoining() {
            return flags.contains("handshake") || flags.contains("noaddr") || port == 0;
        }

        boolean owns(int slot) {
            return slots.stream().anyMatch(range -> range.contains(slot));
        }

        int slotCount() {
            return slots.stream().mapToInt(SlotRange::size).sum();
        }
    }

    record SlotRange(int first, int last) {

        boolean contains(int slot) {
            return slot >= first && slot <= last;
        }

        int size() {
            return last - first + 1;
        }

        @Override
        public String toString() {
            return first == last ? Integer.toString(first) : first + "-" + last;
        }
    }

    /*
     * Line format: <id> <ip:port@cport[,hostname]> <flags> <primary|-> <ping-sent> <pong-recv>
     * <config-epoch> <link-state> <slot-or-range>... ; "[slot->-id]" entries are migrations in flight.
     */
    static ClusterView parse(String clusterNodes) {
        List<Entry> entries = new ArrayList<>();
        for (String line : clusterNodes.split("\n")) {
            String[] fields = line.trim().split(" ");
            if (fields.length < 8) {
                continue;
            }
            String address = fields[1].split("[@,]")[0];
            String portText = address.substring(address.lastIndexOf(':') + 1);
            int port = portText.isEmpty() ? 0 : Integer.parseInt(portText);
            Set<String> flags = Set.of(fields[2].split(","));
            String primaryId = "-".equals(fields[3]) ? null : fields[3];
            List<SlotRange> slots = Arrays.stream(fields, 8, fields.length)
                    .filter(token -> !token.startsWith("["))
                    .map(ClusterView::parseRange)
                    .toList();
            entries.add(new Entry(fields[0], port, flags, primaryId, slots));
        }
        return new ClusterView(List.copyOf(entries));
    }

    private static SlotRange parseRange(String token) {
        int dash = token.indexOf('-');
        if (dash < 0) {
            int slot = Integer.parseInt(token);
            return new SlotRange(slot, slot);
        }
        return new SlotRange(Integer.parseInt(token.substring(0, dash)), Integer.parseInt(token.substring(dash + 1)));
    }

    Optional<Entry> ownerOf(int slot) {
        return entries.stream().filter(entry -> entry.owns(slot)).findFirst();
    }

    Optional<Entry> byId(String id) {
        return entries.stream().filter(entry -> entry.id().equals(id)).findFirst();
    }

    int assignedSlots() {
        return entries.stream().mapToInt(Entry::slotCount).sum();
    }

    /** Which node owns which slots, in a canonical form so that two views can be compared with equals. */
    String slotOwnership() {
        TreeMap<String, String> byOwner = new TreeMap<>();
        for (Entry entry : entries) {
            if (!entry.slots().isEmpty()) {
                byOwner.put(entry.id(), entry.slots().stream().map(SlotRange::toString).collect(Collectors.joining(",")));
            }
        }
        return byOwner.toString();
    }
}
