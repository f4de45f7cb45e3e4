package dev.tollgate.check.chaos;

import dev.tollgate.limiter.Limiter;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.concurrent.CompletableFuture;

/**
 * What a pod looks like from inside when its checks hang, for the report: the threads that sit in Tollgate or
 * Lettuce code, and the futures the engine holds. The pods run in the test's JVM, so both can be read directly.
 */
final class Evidence {

    private Evidence() {
    }

    /**
     * Every thread parked, waiting or blocked inside Tollgate's code (or in a Lettuce connect that Tollgate called),
     * with its top frames: a connect that never returns shows here, a future nobody completes does not (see
     * {@link #engineState(Pods)}).
     */
    static String blockedThreads(Set<Long> olderThreads) {
        // threads with the same stack are shown once, with their names
        Map<String, List<String>> byStack = new LinkedHashMap<>();
        int older = 0;
        for (Map.Entry<Thread, StackTraceElement[]> entry : Thread.getAllStackTraces().entrySet()) {
            Thread thread = entry.getKey();
            StackTraceElement[] stack = entry.getValue();
            boolean tollgate = Arrays.stream(stack).anyMatch(frame -> frame.getClassName().startsWith("dev.tollgate.limiter")
                    || frame.getClassName().startsWith("dev.tollgate.check.") && !frame.getClassName().startsWith("dev.tollgate.check.chaos"));
            if (!tollgate || thread.getState() == Thread.State.RUNNABLE || thread.getName().startsWith("chaos-")) {
                continue;
            }
            if (olderThreads.contains(thread.getId())) {
                older++; // left by an earlier scenario's pods, which are closed: not this scenario's to explain
                continue;
            }
            StringBuilder frames = new StringBuilder();
            Arrays.stream(stack).limit(14).forEach(frame -> frames.append("\n        at ").append(frame));
            byStack.computeIfAbsent(thread.getState() + frames.toString(), s -> new ArrayList<>()).add('"' + thread.getName() + '"');
        }
        StringBuilder out = new StringBuilder();
        byStack.forEach((stack, names) -> out.append("\n    ").append(String.join(", ", names)).append(' ').append(stack));
        if (older > 0) {
            out.append("\n    (and ").append(older).append(" such threads left by earlier scenarios' closed pods, not shown)");
        }
        return out.length() == 0 ? " none" : out.toString();
    }

    /** The threads alive now, so that a scenario shows only the threads of its own pods. */
    static Set<Long> threadIds() {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getId).collect(Collectors.toSet());
    }

    /**
     * The engine's lease calls in flight, per pod: each should be completed within the command timeout; one that
     * stays incomplete holds every later check of its lease set, as one once did for good. Read by reflection, as the
     * engine keeps them private; says so when the field is gone (the engine changed its shape).
     */
    static String engineState(Pods pods) {
        StringBuilder out = new StringBuilder();
        for (Pods.Pod pod : pods.all()) {
            out.append("\n    pod ").append(pod.index()).append(": ");
            try {
                Limiter limiter = pod.context().getBean(Limiter.class);
                Field field = Limiter.class.getDeclaredField("leaseCalls");
                field.setAccessible(true);
                Map<?, ?> calls = (Map<?, ?>) field.get(limiter);
                long incomplete = calls.values().stream().filter(f -> f instanceof CompletableFuture<?> c && !c.isDone()).count();
                out.append(calls.size()).append(" lease calls registered, ").append(incomplete).append(" never completed");
                calls.keySet().stream().limit(6).forEach(key -> out.append("\n        lease set ").append(key));
            } catch (NoSuchFieldException e) {
                out.append("Limiter has no leaseCalls field any more");
            } catch (ReflectiveOperationException | RuntimeException e) {
                out.append("could not read the engine's state: ").append(e);
            }
        }
        return out.toString();
    }
}
