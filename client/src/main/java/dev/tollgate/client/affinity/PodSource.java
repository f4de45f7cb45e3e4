package dev.tollgate.client.affinity;

import java.net.URI;
import java.util.List;

/** The check-service pods a client may send to, each as its base URI ({@code http://10.0.3.7:8080}). */
public interface PodSource extends AutoCloseable {

    /** The pods known now: the same list instance until they change. Empty while none is known. */
    List<URI> pods();

    /** Where the pods come from, for a warning or a health check: a DNS name, a fixed list. */
    default String describe() {
        return "the pods " + pods();
    }

    @Override
    default void close() {
    }

    /** A fixed list: one entry for a Service address (its balancer spreads connections), several for affinity. */
    static PodSource of(List<URI> pods) {
        if (pods.isEmpty()) {
            throw new IllegalArgumentException("give at least one check-service address");
        }
        for (URI pod : pods) {
            if (!"http".equals(pod.getScheme()) || pod.getHost() == null) {
                throw new IllegalArgumentException("a check-service address is http://host:port, not " + pod);
            }
        }
        List<URI> fixed = List.copyOf(pods);
        return new PodSource() {
            @Override
            public List<URI> pods() {
                return fixed;
            }

            @Override
            public String describe() {
                return "the fixed " + (fixed.size() == 1 ? "address " + fixed.get(0) : "pods " + fixed);
            }
        };
    }
}
