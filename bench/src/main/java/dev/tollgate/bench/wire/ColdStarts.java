package dev.tollgate.bench.wire;

import dev.tollgate.bench.load.Stats;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * check-service's cold start by how it is launched, side by side: the executable jar as docs/operations.md's command runs it;
 * with Spring AOT on, as the Helm chart starts a pod in an image without a trained archive, from the jar and from Boot's
 * extracted layout; and the layouts {@code check-service/fast-start.sh} trains (a class-data archive of the JDK the bench runs on; with
 * {@code AOT=on}, Spring AOT's bean definitions as well). Every start is a new process in the Helm chart's shape: a
 * management port of its own, the gRPC port on, rules from a rules-service that does not answer and the pod's saved
 * snapshot, which is how a pod the autoscaler adds during an outage of the control plane starts, and the one shape
 * Spring AOT is processed for. The launches take turns, round by round, so a machine that gets busier weighs on
 * each alike. A start ends at the first enforced verdict (from the snapshot's rules and the store), polled every 5 ms.
 */
public final class ColdStarts {

    /** How the pod is launched. */
    public enum Launch {
        FAT_JAR("fat-jar", "fat jar (`java -jar`)", Layout.JAR, false),
        FAT_JAR_AOT("fat-jar-aot", "fat jar with Spring AOT", Layout.JAR, true),
        EXTRACTED_AOT("extracted-aot", "extracted with Spring AOT, no archive (a Jib image's class path as the chart starts it)",
                Layout.EXTRACTED, true),
        CLASS_CACHE("fast-start", "`fast-start.sh`: extracted, class-data archive", Layout.FAST_START, false),
        SPRING_AOT("fast-start-aot", "`AOT=on fast-start.sh`: Spring AOT and the archive", Layout.FAST_START, true),
        /** check-service/Dockerfile's steps on the bench's JDK: the jar extracted as app.jar, its archive trained in place. */
        IMAGE("image", "the Dockerfile's image as the chart starts it: extracted, Spring AOT, the archive trained in place",
                Layout.IMAGE, true);

        /** Its name in options ({@code --wire-ramp-launches}). */
        public final String key;
        public final String label;
        final Layout layout;
        final boolean springAot;

        Launch(String key, String label, Layout layout, boolean springAot) {
            this.key = key;
            this.label = label;
            this.layout = layout;
            this.springAot = springAot;
        }

        public static Launch of(String key) {
            for (Launch launch : values()) {
                if (launch.key.equals(key.trim())) {
                    return launch;
                }
            }
            throw new IllegalArgumentException("a launch is one of " + java.util.Arrays.stream(values()).map(l -> l.key).toList()
                    + ", was " + key);
        }
    }

    /**
     * The commands of the launches asked for, made ready once (extracted, trained) for whatever starts them.
     *
     * @param commands what follows {@code java} for each launch that could be made: flags, class path or jar
     * @param skipped  launches that could not be made, and why
     */
    public record Prepared(Map<Launch, List<String>> commands, Map<Launch, String> skipped) {
    }

    /**
     * Where the classes come from: the executable jar, Boot's extracted layout, that with fast-start.sh's archive, or
     * the image's layout (the jar extracted as {@code app.jar}, then trained where it lies, as the Dockerfile does).
     */
    enum Layout {
        JAR, EXTRACTED, FAST_START, IMAGE
    }

    /** One start: to the first enforced verdict, and the process's CPU time by then. */
    public record Start(double seconds, double cpuSeconds) {
    }

    /**
     * @param starts  each launch's starts, in the order they ran
     * @param skipped launches not measured, and why
     */
    public record Result(Map<Launch, List<Start>> starts, Map<Launch, String> skipped) {

        /** The launch's median start, seconds; NaN when it was not measured. */
        public double medianSeconds(Launch launch) {
            return Stats.median(starts.getOrDefault(launch, List.of()).stream().mapToDouble(Start::seconds).toArray());
        }

        public double medianCpuSeconds(Launch launch) {
            return Stats.median(starts.getOrDefault(launch, List.of()).stream().mapToDouble(Start::cpuSeconds).toArray());
        }
    }

    /**
     * The pod's jar, JVM flags, store and rules for the starts.
     *
     * @param snapshot the rules as a saved snapshot (the pod's {@code tollgate.rules.snapshot-file})
     * @param probe    a check of those rules
     */
    /** @param trainWarmUp how long fast-start.sh's training run may run the pod's warm-up ({@code TRAIN_WARM_UP}); null: its default */
    public record Settings(Path jar, List<String> jvmFlags, String redisNodes, Path snapshot, byte[] probe, Duration trainWarmUp) {
    }

    private static final long HELPER_TIMEOUT_SECONDS = 300;

    private ColdStarts() {
    }

    /**
     * Lays out and trains each of {@code wanted} (the extracted layout once, fast-start.sh's layouts once each), so that
     * the cold starts and the cold ramps start the same files.
     */
    public static Prepared prepare(Settings settings, java.util.Collection<Launch> wanted, Path work) {
        Map<Launch, List<String>> launches = new EnumMap<>(Launch.class);
        Map<Launch, String> skipped = new EnumMap<>(Launch.class);
        Path script = settings.jar().toAbsolutePath().getParent().getParent().resolve("fast-start.sh");
        Path extracted = work.resolve("extracted");
        for (Launch launch : Launch.values()) {
            if (!wanted.contains(launch)) {
                continue;
            }
            try {
                launches.put(launch, switch (launch.layout) {
                    case JAR -> command(settings, launch, settings.jar());
                    case EXTRACTED -> command(settings, launch, extract(settings.jar(), extracted));
                    case FAST_START -> train(script, launch, settings, work, null);
                    case IMAGE -> train(script, launch, settings, work, extract(copy(settings.jar(), work.resolve("image-jar/app.jar")),
                            work.resolve("image")));
                });
            } catch (IllegalStateException | UncheckedIOException e) {
                // a layout that could not be made is reported in its row, not allowed to lose the run's other figures
                skipped.put(launch, e.getMessage().lines().findFirst().orElse(""));
            }
        }
        return new Prepared(launches, skipped);
    }

    /** {@code rounds} starts of each prepared launch, taking turns; nothing is started when {@code rounds} is 0. */
    public static Result measure(Settings settings, Prepared prepared, List<Launch> timed, int rounds, Ports ports, Path work) {
        Map<Launch, List<Start>> starts = new EnumMap<>(Launch.class);
        if (rounds == 0) {
            return new Result(starts, new EnumMap<>(Launch.class));
        }
        // prepared may hold more launches (the cold ramps'): only the ones asked for are timed here
        Map<Launch, List<String>> launches = new EnumMap<>(Launch.class);
        Map<Launch, String> skipped = new EnumMap<>(Launch.class);
        for (Launch launch : timed) {
            if (prepared.commands().containsKey(launch)) {
                launches.put(launch, prepared.commands().get(launch));
            } else if (prepared.skipped().containsKey(launch)) {
                skipped.put(launch, prepared.skipped().get(launch));
            }
        }
        Ports.PodPorts pod = ports.pod();
        for (int round = 1; round <= rounds; round++) {
            for (Map.Entry<Launch, List<String>> launch : launches.entrySet()) {
                Start start = pod.start(launch.getKey().label, () -> start(launch.getKey(), launch.getValue(), settings, pod, work));
                System.out.printf("  scenario 8: cold start %d of %d, %s: %.2f s (%.1f s of CPU)%n", round, rounds,
                        launch.getKey().label, start.seconds(), start.cpuSeconds());
                starts.computeIfAbsent(launch.getKey(), l -> new ArrayList<>()).add(start);
            }
        }
        return new Result(starts, skipped);
    }

    /** The run's flags, Spring AOT's if the launch has it, and the jar. */
    static List<String> command(Settings settings, Launch launch, Path jar) {
        List<String> command = new ArrayList<>(settings.jvmFlags());
        if (launch.springAot) {
            command.add("-Dspring.aot.enabled=true");
        }
        command.addAll(List.of("-jar", jar.toString()));
        return command;
    }

    /** Boot's extracted layout of the jar (the jar's classes and {@code lib/}, as fast-start.sh lays it out), made once. */
    private static Path extract(Path jar, Path destination) {
        Path extracted = destination.resolve(jar.getFileName());
        if (Files.isRegularFile(extracted)) {
            return extracted;
        }
        run(new ProcessBuilder(JavaProcess.java(), "-Djarmode=tools", "-jar", jar.toString(), "extract", "--destination",
                destination.toString()), destination.resolveSibling("extract.log"), "extracting " + jar);
        return extracted;
    }

    /** The jar under another name (the Dockerfile copies it in as {@code app.jar}, so its extracted jar is that too). */
    private static Path copy(Path jar, Path target) {
        try {
            Files.createDirectories(target.getParent());
            return Files.copy(jar, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("could not copy " + jar, e);
        }
    }

    /**
     * Runs {@code fast-start.sh} for the launch with the bench's JDK and the run's JVM flags (an archive is only
     * valid for the JDK and collector it was trained with) and answers what follows {@code java} in the command it
     * prints: the flags, the archive and the extracted jar.
     *
     * @param inPlace an extracted jar to train where it lies ({@code APP}, as the Dockerfile does); null: the script lays
     *                out the build's jar itself
     */
    private static List<String> train(Path script, Launch launch, Settings settings, Path work, Path inPlace) {
        if (!Files.isRegularFile(script)) {
            throw new IllegalStateException("no " + script + " beside the jar's target folder");
        }
        String name = launch.name().toLowerCase(Locale.ROOT);
        Path log = work.resolve("fast-start-" + name + ".log");
        ProcessBuilder builder = new ProcessBuilder("sh", script.toString(), work.resolve("fast-" + name).toString());
        builder.environment().put("JAVA", JavaProcess.java());
        builder.environment().put("JAVA_OPTS", String.join(" ", settings.jvmFlags()));
        builder.environment().put("AOT", launch.springAot ? "on" : "off");
        if (inPlace != null) {
            builder.environment().put("APP", inPlace.toString());
            builder.directory(work.toFile());
        }
        if (settings.trainWarmUp() != null) {
            builder.environment().put("TRAIN_WARM_UP", settings.trainWarmUp().toMillis() + "ms");
        }
        System.out.printf("  scenario 8: training %s (%s)%n", launch.label, script);
        List<String> output = run(builder, log, "fast-start.sh");
        String command = output.isEmpty() ? "" : output.get(output.size() - 1).trim();
        if (!command.contains(" -jar ")) {
            throw new IllegalStateException("fast-start.sh printed no command; its output is in " + log);
        }
        List<String> words = List.of(command.split("\\s+"));
        return words.subList(1, words.size());
    }

    /** Runs a helper process to its end, its output into {@code log}; answers the output's lines. */
    private static List<String> run(ProcessBuilder builder, Path log, String what) {
        try {
            Files.createDirectories(log.getParent());
            Process process = builder.redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!process.waitFor(HELPER_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(what + " did not finish within " + HELPER_TIMEOUT_SECONDS + " s; see " + log);
            }
            List<String> output = Files.readAllLines(log, StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                throw new IllegalStateException(what + " failed (exit " + process.exitValue() + "); its output " + log + " ends: "
                        + String.join(" | ", output.subList(Math.max(0, output.size() - 5), output.size())));
            }
            return output;
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + what, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while " + what + " ran", e);
        }
    }

    private static Start start(Launch launch, List<String> command, Settings settings, Ports.PodPorts pod, Path work) {
        int http = pod.http();
        // a rules-service that never answers: the pod enforces its saved snapshot
        List<String> arguments = ChartPod.arguments(http, pod.management(), pod.grpc(), settings.redisNodes(), "http://127.0.0.1:1",
                settings.snapshot());
        JavaProcess process = JavaProcess.start("cold-start-" + launch.name().toLowerCase(Locale.ROOT), List.of(), command,
                arguments, work);
        try {
            ServerUnderTest.FirstAnswer first = ServerUnderTest.firstAnswer(launch.label, process, http, settings.probe(),
                    response -> response.statusCode() == 200 && ServerUnderTest.enforced(response.body()));
            return new Start(first.seconds(), first.cpuSeconds());
        } finally {
            process.close();
        }
    }
}
