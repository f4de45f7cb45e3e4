package dev.tollgate.bench.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.stream.Stream;

/**
 * Measures, once a second, how much CPU the rest of the machine takes: all busy CPU time (from
 * {@code /proc/stat}) less this process's and its children's (the Redis servers it started). On a shared
 * 2-core box another build or service takes cores from the engines, the load generator and Redis, so
 * a scenario that ran beside one says so in the report instead of passing its numbers off as clean.
 * Off Linux it measures nothing and reports zero.
 */
public final class Interference implements AutoCloseable {

    /** USER_HZ: the unit of /proc's CPU times on every Linux the bench runs on. */
    private static final double TICKS_PER_SECOND = 100;

    private final DoubleAdder otherCoreSeconds = new DoubleAdder();
    private final Thread watcher;
    private volatile boolean stopped;

    private Interference() {
        watcher = new Thread(this::watch, "bench-interference");
        watcher.setDaemon(true);
    }

    public static Interference start() {
        Interference interference = new Interference();
        interference.watcher.start();
        return interference;
    }

    /** CPU seconds that other processes used so far (a core busy for one second is one). */
    public double otherCoreSeconds() {
        return otherCoreSeconds.sum();
    }

    private void watch() {
        try {
            long lastTotal = machineBusyTicks();
            long lastOwn = ownTicks();
            while (!stopped) {
                Thread.sleep(1000);
                long total = machineBusyTicks();
                long own = ownTicks();
                long other = (total - lastTotal) - (own - lastOwn);
                if (other > 0) {
                    otherCoreSeconds.add(other / TICKS_PER_SECOND);
                }
                lastTotal = total;
                lastOwn = own;
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or /proc unreadable: measure nothing
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long machineBusyTicks() throws IOException {
        String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
        // cpu user nice system idle iowait irq softirq steal ...: everything but idle and iowait
        long busy = 0;
        for (int i = 1; i < Math.min(cpu.length, 9); i++) {
            if (i != 4 && i != 5) {
                busy += Long.parseLong(cpu[i]);
            }
        }
        return busy;
    }

    private static long ownTicks() {
        return Stream.concat(Stream.of(ProcessHandle.current()), ProcessHandle.current().descendants())
                .mapToLong(p -> processTicks(p.pid()))
                .sum();
    }

    private static long processTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            // fields after the command name (which may hold spaces) start at index 2: utime is field 14, stime 15
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    @Override
    public void close() {
        stopped = true;
        watcher.interrupt();
    }
}
