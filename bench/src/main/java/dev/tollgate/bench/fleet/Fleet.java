package dev.tollgate.bench.fleet;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.Arrays;
import java.util.function.IntSupplier;

/**
 * One contender's pods. The live pod count is what every Tollgate engine is told (its {@code livePods}
 * supplier), so scaling out changes what the engines divide by at the same moment new pods serve.
 */
public final class Fleet {

    /** Makes a fresh pod: its own engine state, told the fleet's live pod count. */
    @FunctionalInterface
    public interface PodFactory {
        Gate newPod(IntSupplier livePods);
    }

    private final PodFactory factory;
    private final MeterRegistry registry;
    private volatile Gate[] pods;

    /** @param registry where the pods' engines count their local answers, or null (the baseline has none) */
    public Fleet(int size, PodFactory factory, MeterRegistry registry) {
        this.factory = factory;
        this.registry = registry;
        Gate[] initial = new Gate[size];
        for (int i = 0; i < size; i++) {
            initial[i] = factory.newPod(this::size);
        }
        this.pods = initial;
    }

    public Gate pod(int index) {
        return pods[index];
    }

    public int size() {
        return pods.length;
    }

    /** Adds fresh pods up to {@code size}; from now on they serve and the live count says so. */
    public void scaleTo(int size) {
        Gate[] current = pods;
        Gate[] grown = Arrays.copyOf(current, size);
        for (int i = current.length; i < size; i++) {
            grown[i] = factory.newPod(this::size);
        }
        pods = grown;
    }

    /** A counter of the engines' metrics, summed over every pod the fleet ever had; 0 for the baseline. */
    public double counter(String name) {
        if (registry == null) {
            return 0;
        }
        return registry.find(name).counters().stream().mapToDouble(Counter::count).sum();
    }

    /** Replaces one pod by a freshly started one, as a pod restart does: the old pod's state is gone. */
    public void restart(int index) {
        Gate[] copy = pods.clone();
        copy[index] = factory.newPod(this::size);
        pods = copy;
    }
}
