package dev.tollgate.bench.wire;

import java.util.List;
import java.util.Optional;

/**
 * When a server's JIT has settled under load: its compilers' total time (HotSpot's
 * {@code java.lang:type=Compilation} {@code TotalCompilationTime}, read over JMX) grew by less than
 * {@code quietCompileMillis} over the last {@code windowSeconds}, after at least {@code minChecks} checks. Until then a step measures the JIT at work as
 * much as the server: check-service under saturation spends its first minutes at 5–12× its settled CPU per check
 * while C2 takes a fifth of the machine.
 *
 * <p>The default, under 50 ms of compilation in 5 s, is the compilers busy 1% of one thread: at a settled
 * server's thousands of checks a second that is well under 1 µs of CPU per check, below the steps' noise,
 * while a JIT still at work compiles tens of times more. {@code TotalCompilationTime} is the compile tasks'
 * elapsed time, so on a busy machine it overstates and the rule errs towards warming longer. The least number
 * of checks, 20,000, is past C2's thresholds (about 5,000 invocations and 15,000 invocations and loops, tiered) for
 * code run once per check: a server a starved machine feeds a few hundred checks a second can have a quiet
 * window before its per-check code has even been queued for C2.
 *
 * @param windowSeconds      real seconds, not time-scaled: the JIT's pace does not follow the bench's time scale
 * @param quietCompileMillis the compilation time under which a window counts as quiet (exclusive)
 * @param minChecks          checks answered before the JIT can count as settled
 */
public record JitSettle(double windowSeconds, long quietCompileMillis, long minChecks) {

    public static final JitSettle DEFAULT = new JitSettle(5, 50, 20_000);

    /**
     * One reading of the compilers' total.
     *
     * @param seconds       since the warm-up started
     * @param compileMillis the server JVM's total compilation time since it started
     * @param checks        checks the warm-up had answered by then
     */
    public record Sample(double seconds, long compileMillis, long checks) {
    }

    public JitSettle {
        if (!(windowSeconds > 0) || quietCompileMillis <= 0 || minChecks < 0) {
            throw new IllegalArgumentException("a settle window and a quiet threshold must be positive and the least checks "
                    + "0 or more, were " + windowSeconds + " s, " + quietCompileMillis + " ms and " + minChecks);
        }
    }

    /**
     * The first sample at which the JIT had settled: compared with the latest sample at least a window before it,
     * the compilers' total grew by less than the threshold, and the least number of checks had been answered.
     * Empty while no window has passed or none was quiet.
     *
     * @param samples in the order they were read, their seconds rising
     */
    public Optional<Sample> settledAt(List<Sample> samples) {
        int windowStart = -1;
        for (int i = 1; i < samples.size(); i++) {
            Sample now = samples.get(i);
            // the latest sample still a whole window back only moves forward as i does
            while (windowStart + 1 < i && now.seconds() - samples.get(windowStart + 1).seconds() >= windowSeconds) {
                windowStart++;
            }
            if (windowStart >= 0 && now.checks() >= minChecks
                    && now.compileMillis() - samples.get(windowStart).compileMillis() < quietCompileMillis) {
                return Optional.of(now);
            }
        }
        return Optional.empty();
    }
}
