package dev.tollgate.check.rules;

import dev.tollgate.check.metrics.CheckMeters;
import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.envoy.EnvoyConfig;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleSnapshot;
import dev.tollgate.common.validation.RuleValidator;
import dev.tollgate.common.validation.Violation;
import dev.tollgate.limiter.rules.DescriptorBook;
import dev.tollgate.limiter.rules.SnapshotRuleBook;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A directory of envoyproxy/ratelimit configuration files, served as they are: every {@code *.yaml} and
 * {@code *.yml} in it (not below it, not hidden: a Kubernetes ConfigMap's {@code ..data} is skipped and its
 * links are followed), each translated by {@link EnvoyConfig}, are the pod's rules and descriptor mappings.
 *
 * <p>Read again every {@code interval} when any file's name or bytes changed. A directory that cannot be
 * served (a file that is not valid, two files of one domain, a file that cannot be read) is refused whole:
 * the last good configuration stays in force, the reasons are logged and the refusal is counted. At start-up
 * there is no last good one, so the pod does not start, as with a bad rules file.
 */
public final class EnvoyConfigDirectory implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EnvoyConfigDirectory.class);
    private static final YAMLMapper YAML = YAMLMapper.builder().build();
    /** envoyproxy/ratelimit configurations are kilobytes; a file larger than this is a mistake, not read into the heap. */
    static final long MAX_FILE_BYTES = 4L * 1024 * 1024;

    /** A directory's configuration, or why it cannot be served. */
    record Read(byte[] digest, List<Rule> rules, List<DescriptorDomain> domains, List<String> problems) {
    }

    private final Path directory;
    private final Duration interval;
    private final SnapshotRuleBook rules;
    private final DescriptorBook descriptors;
    private final Counter applied;
    private final Counter refused;
    private final AtomicInteger domainsInForce = new AtomicInteger();
    private ScheduledExecutorService poller;
    private byte[] inForce = new byte[0];
    private byte[] lastRefused = new byte[0];
    private long loads;

    private EnvoyConfigDirectory(Path directory, Duration interval, SnapshotRuleBook rules, DescriptorBook descriptors, MeterRegistry registry) {
        this.directory = directory;
        this.interval = interval;
        this.rules = rules;
        this.descriptors = descriptors;
        if (registry == null) {
            this.applied = null;
            this.refused = null;
            return;
        }
        this.applied = Counter.builder(CheckMeters.ENVOY_CONFIG_LOADS).tag("outcome", "applied")
                .description("Reads of tollgate.envoy.config-dir by outcome; refused: a file was invalid, the last good configuration stays")
                .register(registry);
        this.refused = Counter.builder(CheckMeters.ENVOY_CONFIG_LOADS).tag("outcome", "refused")
                .description("Reads of tollgate.envoy.config-dir by outcome; refused: a file was invalid, the last good configuration stays")
                .register(registry);
        Gauge.builder(CheckMeters.ENVOY_CONFIG_DOMAINS, domainsInForce, AtomicInteger::get)
                .description("Domains of the envoyproxy/ratelimit configuration in force").register(registry);
    }

    public static EnvoyConfigDirectory watching(Path directory, Duration interval, SnapshotRuleBook rules, DescriptorBook descriptors,
                                                MeterRegistry registry) {
        return new EnvoyConfigDirectory(directory, interval, rules, descriptors, registry);
    }

    /** A pod whose rules come from elsewhere: starting and closing it do nothing. */
    public static EnvoyConfigDirectory none() {
        return new EnvoyConfigDirectory(null, null, null, null, null);
    }

    /** Reads the directory once (a pod with a directory it cannot serve does not start), then watches it. */
    public void start() {
        if (directory == null) {
            return;
        }
        Read read = read(directory);
        if (!read.problems().isEmpty()) {
            refused.increment();
            throw new IllegalStateException("tollgate.envoy.config-dir: " + directory.toAbsolutePath() + " cannot be served: "
                    + String.join("; ", read.problems()));
        }
        apply(read);
        poller = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "tollgate-envoy-config");
            thread.setDaemon(true);
            return thread;
        });
        poller.scheduleWithFixedDelay(this::reload, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** One look at the directory: applied when it changed and can be served, else the last good configuration stays. */
    synchronized void reload() {
        try {
            Read read = read(directory);
            if (Arrays.equals(read.digest(), inForce)) {
                return;
            }
            if (!read.problems().isEmpty()) {
                if (!Arrays.equals(read.digest(), lastRefused)) {
                    // once per change: a bad file left in place is not counted, or logged, every interval
                    lastRefused = read.digest();
                    refused.increment();
                    log.error("tollgate.envoy.config-dir: {} was refused, the configuration read before stays in force: {}",
                            directory.toAbsolutePath(), String.join("; ", read.problems()));
                }
                return;
            }
            apply(read);
        } catch (RuntimeException e) {
            // the poller must outlive any one read: a failure here would end its schedule silently
            log.error("tollgate.envoy.config-dir: reading {} failed; the configuration read before stays in force", directory, e);
        }
    }

    private void apply(Read read) {
        rules.apply(new RuleSnapshot(++loads, read.rules(), List.of(), List.of(), read.domains()));
        descriptors.apply(read.domains());
        inForce = read.digest();
        lastRefused = new byte[0];
        domainsInForce.set(read.domains().size());
        applied.increment();
        log.info("tollgate.envoy.config-dir: {} domains and {} rules in force from {}", read.domains().size(), read.rules().size(),
                directory.toAbsolutePath());
    }

    /** Every file of the directory, translated and judged together; the digest covers names and bytes, read or not. */
    static Read read(Path directory) {
        MessageDigest digest = sha256();
        List<String> problems = new ArrayList<>();
        List<Rule> rules = new ArrayList<>();
        List<DescriptorDomain> domains = new ArrayList<>();
        Map<String, Path> domainFiles = new HashMap<>();
        List<Path> files;
        try {
            files = files(directory);
        } catch (IOException | UncheckedIOException e) {
            return new Read(new byte[] {1}, List.of(), List.of(), List.of("cannot list the directory: " + e.getMessage()));
        }
        for (Path file : files) {
            String name = file.getFileName().toString();
            digest.update(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            digest.update((byte) 0);
            byte[] bytes;
            try {
                if (Files.size(file) > MAX_FILE_BYTES) {
                    problems.add(name + ": is larger than " + MAX_FILE_BYTES + " bytes");
                    continue;
                }
                bytes = Files.readAllBytes(file);
            } catch (IOException e) {
                problems.add(name + ": cannot be read: " + e.getMessage());
                continue;
            }
            digest.update(bytes);
            EnvoyConfig.Translation translation;
            try {
                translation = EnvoyConfig.translate(YAML.readValue(bytes, Object.class));
            } catch (JacksonException e) {
                problems.add(name + ": is not YAML: " + e.getOriginalMessage());
                continue;
            }
            for (Violation violation : translation.violations()) {
                problems.add(name + ": " + violation);
            }
            for (EnvoyConfig.Note note : translation.notes()) {
                log.warn("tollgate.envoy.config-dir: {}: {}", name, note);
            }
            if (!translation.valid()) {
                continue;
            }
            Path before = domainFiles.putIfAbsent(translation.domain(), file);
            if (before != null) {
                problems.add(name + ": domain " + translation.domain() + " is already the domain of " + before.getFileName());
                continue;
            }
            rules.addAll(translation.rules());
            if (!translation.mapping().descriptors().isEmpty()) {
                domains.add(translation.mapping());
            }
        }
        if (problems.isEmpty()) {
            for (Violation violation : new RuleValidator().validate(new RuleSnapshot(0, rules, List.of(), List.of(), domains))) {
                problems.add(violation.toString());
            }
        }
        return new Read(digest.digest(), List.copyOf(rules), List.copyOf(domains), List.copyOf(problems));
    }

    private static List<Path> files(Path directory) throws IOException {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.filter(path -> {
                String name = path.getFileName().toString();
                return !name.startsWith(".") && (name.endsWith(".yaml") || name.endsWith(".yml")) && Files.isRegularFile(path);
            }).sorted().toList();
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }

    @Override
    public void close() {
        if (poller != null) {
            poller.shutdownNow();
        }
    }
}
