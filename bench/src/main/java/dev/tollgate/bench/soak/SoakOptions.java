package dev.tollgate.bench.soak;

/**
 * Scenario 10's length and pace. Real seconds, not time-scaled: a leak shows over wall-clock time and checks, and the
 * faults' recoveries (a failover, a pod's start) take the time they take.
 *
 * @param minutes          the whole soak, load start to load end
 * @param faultEverySeconds one fault this often, the first one period in; they take turns (a frozen primary, a killed
 *                         primary, a killed pod)
 * @param rate             checks per second offered in total, over both pods
 * @param sampleSeconds    each pod is sampled this often
 * @param gcEverySeconds   a full GC is forced in each pod this often (never during a fault), so that "heap after GC"
 *                         is the live set, not whatever the last young collection left; every minute by default, so that
 *                         even the killed pod's shorter lives have enough such samples for a verdict
 */
public record SoakOptions(double minutes, double faultEverySeconds, double rate, double sampleSeconds, double gcEverySeconds) {

    public static final SoakOptions DEFAULTS = new SoakOptions(30, 270, 600, 15, 60);

    public SoakOptions {
        if (!(minutes >= 1)) {
            throw new IllegalArgumentException("--soak-minutes must be at least 1, was " + minutes);
        }
        if (!(faultEverySeconds >= 30)) {
            throw new IllegalArgumentException("--soak-fault-every-s must be at least 30 (a fault and its recovery take ~20 s), was "
                    + faultEverySeconds);
        }
        if (!(rate >= 10) || rate > 5_000) {
            throw new IllegalArgumentException("--soak-rate must be between 10 and 5000 checks/s, was " + rate);
        }
        if (!(sampleSeconds >= 2)) {
            throw new IllegalArgumentException("--soak-sample-s must be at least 2, was " + sampleSeconds);
        }
        if (!(gcEverySeconds >= sampleSeconds)) {
            throw new IllegalArgumentException("--soak-gc-every-s must be at least --soak-sample-s, was " + gcEverySeconds);
        }
    }

    public double seconds() {
        return minutes * 60;
    }

    /** Samples before this, from a pod's start, are its warm-up (JIT, pools and caches filling): a fifth of the soak, at most 3 min. */
    public double warmupSeconds() {
        return Math.min(180, seconds() / 5);
    }

    /** No fault starts later than this before the end, so the last one has recovered before the load stops. */
    double lastFaultMargin() {
        return Math.min(60, faultEverySeconds / 2);
    }
}
