package dev.tollgate.client.affinity;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The pods a key's check tries, in order: the key's rendezvous order over the pods known now, pods marked down moved
 * to the end (still tried when nothing else is left). A pod is marked down by a failure (a refused or timed-out
 * connect, a deadline it had not begun to answer by, a server error); every later check skips it at once instead of
 * paying for that failure again, so its keys go to their next pod.
 *
 * <p>A down pod gets its keys back only through a probe: once its time is up, the first check whose key ranks it
 * first is sent to it, and only that one; the others keep skipping it until the probe ends. A probe that fails marks
 * it down for twice as long, up to {@code downForAtMost}; one that gets an answer brings it back for every key. So a
 * dead pod costs one check per interval, not its whole share of the traffic each time its mark runs out.
 *
 * <p>The transitions, all on one pod's entry:
 * <pre>
 *   up ──failed──▶ down(first)            down ──failed──▶ down (unchanged: a check sent before it was marked)
 *   down, time up ──a key's first──▶ probing        probing ──failed──▶ down(twice as long, at most the cap)
 *   down or probing ──answered──▶ up      probing, unreported for its interval ──▶ probed again
 * </pre>
 */
public final class PodPicker {

    private final PodSource source;
    private final long firstDownNanos;
    private final long longestDownNanos;
    private final LongSupplier nanoTime;
    private final Map<URI, Down> downs = new ConcurrentHashMap<>();
    private volatile Ring ring = new Ring(List.of(), Rendezvous.of(List.of()));

    private record Ring(List<URI> pods, Rendezvous rendezvous) {
    }

    /**
     * A pod marked down: skipped until {@code until}, then probed by one check.
     *
     * @param forNanos the interval it was marked for, doubled by each failed probe
     * @param probing  one check was sent to it as the probe at {@code until - forNanos}; until is then the time after
     *                 which an unreported probe (a cancelled call) is given up and another one sent
     */
    private record Down(long until, long forNanos, boolean probing) {
    }

    /**
     * @param downFor       how long a pod is skipped after its first failure
     * @param downForAtMost the longest it is skipped after failed probes (at least {@code downFor})
     */
    public PodPicker(PodSource source, Duration downFor, Duration downForAtMost, LongSupplier nanoTime) {
        if (downForAtMost.compareTo(downFor) < 0) {
            throw new IllegalArgumentException("downForAtMost (" + downForAtMost + ") is shorter than downFor (" + downFor + ")");
        }
        this.source = source;
        this.firstDownNanos = downFor.toNanos();
        this.longestDownNanos = downForAtMost.toNanos();
        this.nanoTime = nanoTime;
    }

    /** The pods to try for this key, best first; empty when no pod is known. May make the first one a down pod's probe. */
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
            Down mark = downs.get(pod);
            if (mark == null || (live.isEmpty() && claimProbe(pod, mark, now))) {
                live.add(pod);
            } else {
                down.add(pod);
            }
        }
        live.addAll(down);
        return live;
    }

    /** The pods known now, and how many of them are marked down (probing included). */
    public int known() {
        return ring().pods().size();
    }

    public int down() {
        int count = 0;
        for (URI pod : ring().pods()) {
            if (downs.containsKey(pod)) {
                count++;
            }
        }
        return count;
    }

    /** Its key ranks this down pod first and its time is up: this check is its probe, if no other check took it. */
    private boolean claimProbe(URI pod, Down mark, long now) {
        if (now - mark.until() < 0) {
            return false;
        }
        // replace, not put: of the checks that find its time up together, one is the probe
        return downs.replace(pod, mark, new Down(now + mark.forNanos(), mark.forNanos(), true));
    }

    /** The pod refused, lost or left unanswered a check, or answered a server error. */
    public void failed(URI pod) {
        long now = nanoTime.getAsLong();
        downs.compute(pod, (p, mark) -> {
            if (mark == null) {
                return new Down(now + firstDownNanos, firstDownNanos, false);
            }
            if (mark.probing()) {
                long longer = Math.min(longestDownNanos, mark.forNanos() * 2);
                return new Down(now + longer, longer, false);
            }
            // a check that was on its way before the pod was marked: the mark already stands for it
            return mark;
        });
    }

    /** The pod answered (any answer, a problem or a deny included): it takes its keys back at once. */
    public void answered(URI pod) {
        if (!downs.isEmpty()) {
            downs.remove(pod);
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
            downs.keySet().retainAll(pods);
        }
        return current;
    }
}
