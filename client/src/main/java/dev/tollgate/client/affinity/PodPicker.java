package dev.tollgate.client.affinity;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The pods a key's check tries, in order: the key's rendezvous order over the pods known now, pods that failed in
 * the last {@code downFor} moved to the end (still tried when nothing else is left). A failed pod is skipped at
 * once by every later check, instead of each check paying its refused connect first; after {@code downFor} it is
 * tried again, and its keys come back to it.
 */
public final class PodPicker {

    private final PodSource source;
    private final long downForNanos;
    private final LongSupplier nanoTime;
    private final Map<URI, Long> downUntil = new ConcurrentHashMap<>();
    private volatile Ring ring = new Ring(List.of(), Rendezvous.of(List.of()));

    private record Ring(List<URI> pods, Rendezvous rendezvous) {
    }

    public PodPicker(PodSource source, Duration downFor, LongSupplier nanoTime) {
        this.source = source;
        this.downForNanos = downFor.toNanos();
        this.nanoTime = nanoTime;
    }

    /** The pods to try for this key, best first; empty when no pod is known. */
    public List<URI> order(String key) {
        Ring current = ring();
        int n = current.pods().size();
        if (n <= 1) {
            return current.pods();
        }
        int[] order = current.rendezvous().order(key);
        List<URI> live = new ArrayList<>(n);
        List<URI> down = new ArrayList<>(0);
        long now = nanoTime.getAsLong();
        for (int index : order) {
            URI pod = current.pods().get(index);
            Long until = downUntil.get(pod);
            if (until != null && now - until < 0) {
                down.add(pod);
            } else {
                live.add(pod);
            }
        }
        live.addAll(down);
        return live;
    }

    /** The pod refused, lost or left unanswered a check: later checks go to the next pod of their keys for a while. */
    public void failed(URI pod) {
        downUntil.put(pod, nanoTime.getAsLong() + downForNanos);
    }

    /** The pod answered: it takes its keys back at once. */
    public void answered(URI pod) {
        if (!downUntil.isEmpty()) {
            downUntil.remove(pod);
        }
    }

    private Ring ring() {
        List<URI> pods = source.pods();
        Ring current = ring;
        if (current.pods() != pods) {
            List<String> names = new ArrayList<>(pods.size());
            for (URI pod : pods) {
                // host:port, the same for every client whatever path or trailing slash it was configured with
                names.add(pod.getHost() + ":" + pod.getPort());
            }
            current = new Ring(pods, Rendezvous.of(names));
            ring = current;
            downUntil.keySet().retainAll(pods);
        }
        return current;
    }
}
