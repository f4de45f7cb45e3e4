/**
 * Key affinity: which check-service pod a key's checks go to. {@link dev.tollgate.client.affinity.Rendezvous}
 * orders the pods for a key (highest random weight), so every client that knows the same pods sends a key to the
 * same pod and only a failed pod's keys move; {@link dev.tollgate.client.affinity.PodSource} says which pods there
 * are (a static list, or a headless Service's DNS A records, refreshed).
 */
package dev.tollgate.client.affinity;
