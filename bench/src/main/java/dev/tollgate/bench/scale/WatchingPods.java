package dev.tollgate.bench.scale;

import dev.tollgate.store.backoff.Backoff;
import dev.tollgate.store.backoff.Backoff.Jitter;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

/**
 * Gateway pods as rules-service sees them: each long-polls {@code GET /v1/watch} on a thread of its own,
 * holding the revision it last received, exactly as check-service's RulesWatcher does (gzip accepted,
 * bearer token). A pod asks with {@code since} and its {@code region}: today's feed ignores the region and
 * answers the whole snapshot, a delta feed answers only what changed for that region; both are read the
 * same way, since the pod takes the revision from the weak ETag ({@code W/"<revision>"}), or from the body's
 * {@code "revision"} field when there is none. The body is counted, byte by byte as it arrives on the wire,
 * and thrown away: the pods cost the bench a thread each and no parsing.
 */
final class WatchingPods implements AutoCloseable {

    private static final Pattern ETAG = Pattern.compile("\"(\\d+)\"");
    /** How long it takes all pods to make their first request. */
    static final Duration STARTUP_SPREAD = Duration.ofSeconds(10);
    /** Where a body goes once counted. */
    private static final java.io.OutputStream DISCARD = java.io.OutputStream.nullOutputStream();
    private static final Pattern BODY_REVISION = Pattern.compile("\"revision\"\\s*:\\s*(\\d+)");
    /** The wait after failed polls in a row; unlike RulesWatcher's, without jitter. */
    private static final Backoff BACKOFF = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(5), Jitter.NONE);

    /** One pod's view of the feed: the revisions it received, and when. */
    static final class Pod {
        final int index;
        final String region;
        private final List<long[]> received = new ArrayList<>();
        private volatile long revision = -1;

        Pod(int index, String region) {
            this.index = index;
            this.region = region;
        }

        synchronized void received(long revision, long nanos) {
            received.add(new long[] {revision, nanos});
            this.revision = revision;
        }

        /** When this pod first held {@code revision} or a later one. */
        synchronized OptionalLong firstHolding(long revision) {
            for (long[] r : received) {
                if (r[0] >= revision) {
                    return OptionalLong.of(r[1]);
                }
            }
            return OptionalLong.empty();
        }

        long revision() {
            return revision;
        }
    }

    private final URI watch;
    private final String token;
    private final HttpClient http;
    private final List<Pod> pods = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final LongAdder wireBytes = new LongAdder();
    private final LongAdder answers = new LongAdder();
    private final LongAdder notModified = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private final AtomicLong lastFailure = new AtomicLong();
    private volatile String lastFailureText = "";
    private volatile boolean stopped;

    WatchingPods(URI rulesService, String token, int count, List<String> regions) {
        this.watch = rulesService.resolve("/v1/watch");
        this.token = token;
        // HTTP/1.1 as the pods speak it: one connection per waiting watch
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
        for (int i = 0; i < count; i++) {
            Pod pod = new Pod(i, regions.get(i % regions.size()));
            pods.add(pod);
            Thread thread = new Thread(() -> run(pod), "scale-pod-" + i);
            thread.setDaemon(true);
            threads.add(thread);
        }
    }

    void start() {
        threads.forEach(Thread::start);
    }

    List<Pod> pods() {
        return List.copyOf(pods);
    }

    /** Bytes received on the wire (gzip as sent) by every pod so far. */
    long wireBytes() {
        return wireBytes.sum();
    }

    /** 200 answers (snapshots or deltas) received by every pod so far. */
    long answers() {
        return answers.sum();
    }

    long notModified() {
        return notModified.sum();
    }

    long failures() {
        return failures.sum();
    }

    String lastFailure() {
        return lastFailureText;
    }

    /** Pods holding at least {@code revision}. */
    int holding(long revision) {
        int n = 0;
        for (Pod pod : pods) {
            if (pod.revision() >= revision) {
                n++;
            }
        }
        return n;
    }

    private void run(Pod pod) {
        // pods come up over STARTUP_SPREAD, as a rolling deploy brings them, not all in one instant
        sleep(STARTUP_SPREAD.multipliedBy(pod.index).dividedBy(Math.max(1, pods.size())));
        Backoff.Streak backoff = BACKOFF.streak(ThreadLocalRandom.current());
        while (!stopped) {
            try {
                pollOnce(pod);
                backoff.reset();
            } catch (IOException e) {
                if (stopped) {
                    return;
                }
                failures.increment();
                lastFailure.set(System.nanoTime());
                lastFailureText = e.toString();
                sleep(backoff.next());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void pollOnce(Pod pod) throws IOException, InterruptedException {
        long held = pod.revision();
        String query = held < 0 ? "?region=" + pod.region : "?since=" + held + "&region=" + pod.region;
        HttpRequest request = HttpRequest.newBuilder(URI.create(watch + query))
                .timeout(Duration.ofSeconds(60))
                .header("Accept", "application/json")
                .header("Accept-Encoding", "gzip")
                .header("Authorization", "Bearer " + token)
                .GET().build();
        HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        int status = response.statusCode();
        boolean gzip = response.headers().firstValue("Content-Encoding").map(e -> e.equalsIgnoreCase("gzip")).orElse(false);
        OptionalLong etag = response.headers().firstValue("ETag").map(WatchingPods::revisionOf).orElse(OptionalLong.empty());
        try (InputStream body = response.body()) {
            if (status == 304) {
                body.transferTo(DISCARD);
                notModified.increment();
                return;
            }
            if (status != 200) {
                throw new IOException("watch answered " + status);
            }
            long revision;
            if (etag.isPresent()) {
                wireBytes.add(body.transferTo(DISCARD));
                revision = etag.getAsLong();
            } else {
                byte[] wire = body.readAllBytes();
                wireBytes.add(wire.length);
                revision = revisionInBody(wire, gzip);
            }
            answers.increment();
            pod.received(revision, System.nanoTime());
        }
    }

    static OptionalLong revisionOf(String etag) {
        Matcher m = ETAG.matcher(etag);
        return m.find() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
    }

    /** The top-level revision of an answer without an ETag: it comes first in every shape the feed writes. */
    static long revisionInBody(byte[] wire, boolean gzip) throws IOException {
        byte[] head = wire;
        if (gzip) {
            try (InputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(wire))) {
                head = in.readNBytes(4096);
            }
        }
        Matcher m = BODY_REVISION.matcher(new String(head, 0, Math.min(head.length, 4096), java.nio.charset.StandardCharsets.UTF_8));
        if (!m.find()) {
            throw new IOException("a watch answer with neither an ETag nor a revision");
        }
        return Long.parseLong(m.group(1));
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        stopped = true;
        threads.forEach(Thread::interrupt);
    }
}
