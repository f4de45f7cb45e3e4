package dev.tollgate.store.read;

import java.util.List;

/**
 * What a region's pods published of their hot keys: the pods in its registry, and the reports of those that
 * published one lately. A pod in the registry without a report has not published yet, or its report aged out.
 */
public record FleetHotKeys(List<String> registeredPods, List<PodHotKeys> reports) {

    /** The most pods one read asks for: a region of more is read by its first pods in id order, and says so. */
    public static final int MAX_PODS = 1_000;

    public FleetHotKeys {
        registeredPods = List.copyOf(registeredPods);
        reports = List.copyOf(reports);
    }
}
