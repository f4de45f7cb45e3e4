package dev.tollgate.check.chaos;


import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Checks of the scenario's limits on its pods, from the moment it starts until {@link #stop()}, a request cap or a
 * time cap, whichever comes first: closed-loop clients (each waits for its answer, then a short pause), as a
 * gateway's worker threads do, and an open loop at a fixed rate that does not slow down when answers do, as traffic
 * does not. Keep-alive HTTP/1.1, a timeout per request; every request sent is recorded in the {@link Ledger},
 * answered or not.
 */
final class Load implements AutoCloseable {

    /**
     * @param closedClients closed-loop clients
     * @param think         each closed-loop client's pause between an answer and its next request
     * @param openPerSecond the open loop's rate (0: none)
     * @param maxRequests   the load stops itself after this many requests
     * @param maxDuration   ... or after this long
     */
    record Shape(int closedClients, Duration think, int openPerSecond, int maxRequests, Duration maxDuration) {

        /** About 300-400 checks/s in all on a 2-core box: every hot limit far past its rate, the box not saturated. */
        static final Shape STANDARD = new Shape(4, Duration.ofMillis(10), 120, 60_000, Duration.ofSeconds(100));
    }

    /** The open loop never has more than this in flight: a pod that stops answering must not exhaust the client. */
    private static final int OPEN_IN_FLIGHT = 500;

    private final Pods pods;
    private final Targets targets;
    private final Ledger ledger;
    private final Shape shape;
    private final Duration clientTimeout;
    private final HttpClient http;
    private final ExecutorService httpExecutor;
    private final ExecutorService closedLoop;
    private final ScheduledExecutorService openLoop;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicInteger sent = new AtomicInteger();
    private final AtomicLong skipped = new AtomicLong();
    private final Semaphore openPermits = new Semaphore(OPEN_IN_FLIGHT);
    private final Set<CompletableFuture<?>> inFlight = ConcurrentHashMap.newKeySet();

    private Load(Pods pods, Targets targets, Ledger ledger, Shape shape) {
        this.pods = pods;
        this.targets = targets;
        this.ledger = ledger;
        this.shape = shape;
        this.clientTimeout = ledger.limits().clientTimeout();
        this.httpExecutor = Executors.newFixedThreadPool(3, daemon("chaos-http"));
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(1))
                .executor(httpExecutor)
                .build();
        this.closedLoop = Executors.newFixedThreadPool(Math.max(1, shape.closedClients()), daemon("chaos-client"));
        this.openLoop = Executors.newSingleThreadScheduledExecutor(daemon("chaos-open-loop"));
    }

    static Load start(Pods pods, Targets targets, Ledger ledger, Shape shape) {
        Load load = new Load(pods, targets, ledger, shape);
        for (int i = 0; i < shape.closedClients(); i++) {
            load.closedLoop.submit(load::closedClient);
        }
        if (shape.openPerSecond() > 0) {
            load.openLoop.scheduleAtFixedRate(load::openTick, 0, TimeUnit.SECONDS.toNanos(1) / shape.openPerSecond(), TimeUnit.NANOSECONDS);
        }
        load.openLoop.schedule(() -> load.running.set(false), shape.maxDuration().toMillis(), TimeUnit.MILLISECONDS);
        return load;
    }

    /** Requests sent so far. */
    int sent() {
        return sent.get();
    }

    /** Open-loop ticks that found {@value #OPEN_IN_FLIGHT} requests still in flight and sent nothing. */
    long skipped() {
        return skipped.get();
    }

    boolean running() {
        return running.get();
    }

    /** Stops sending and waits for every request in flight to be answered or to time out. */
    void stop() {
        running.set(false);
        openLoop.shutdownNow();
        closedLoop.shutdown();
        long waitMs = clientTimeout.toMillis() + 2_000;
        try {
            if (!closedLoop.awaitTermination(waitMs, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("closed-loop clients still busy " + waitMs + " ms after the load stopped");
            }
            CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).get(waitMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping the load", e);
        } catch (Exception e) {
            throw new IllegalStateException("requests still in flight " + waitMs + " ms after the load stopped", e);
        }
    }

    @Override
    public void close() {
        running.set(false);
        openLoop.shutdownNow();
        closedLoop.shutdownNow();
        httpExecutor.shutdownNow();
    }

    private boolean mayContinue() {
        if (!running.get()) {
            return false;
        }
        if (sent.incrementAndGet() > shape.maxRequests()) {
            sent.decrementAndGet();
            running.set(false);
            return false;
        }
        return true;
    }

    private void closedClient() {
        while (mayContinue()) {
            Target target = targets.pick();
            int pod = ThreadLocalRandom.current().nextInt(pods.size());
            long sentNanos = System.nanoTime();
            long sentWall = System.currentTimeMillis();
            try {
                HttpResponse<String> response = http.send(request(target, pod), HttpResponse.BodyHandlers.ofString());
                ledger.record(Answer.of(target, pod, sentNanos, sentWall, response));
            } catch (HttpTimeoutException e) {
                ledger.record(Answer.none(target, pod, sentNanos, sentWall, Answer.Kind.CLIENT_TIMEOUT, e));
            } catch (IOException e) {
                ledger.record(Answer.none(target, pod, sentNanos, sentWall, Answer.Kind.FAILED, e));
            } catch (InterruptedException e) {
                ledger.record(Answer.none(target, pod, sentNanos, sentWall, Answer.Kind.FAILED, e));
                Thread.currentThread().interrupt();
                return;
            }
            pause(shape.think());
        }
    }

    private void openTick() {
        if (!openPermits.tryAcquire()) {
            skipped.incrementAndGet();
            return;
        }
        if (!mayContinue()) {
            openPermits.release();
            return;
        }
        Target target = targets.pick();
        int pod = ThreadLocalRandom.current().nextInt(pods.size());
        long sentNanos = System.nanoTime();
        long sentWall = System.currentTimeMillis();
        CompletableFuture<Void> call = http.sendAsync(request(target, pod), HttpResponse.BodyHandlers.ofString())
                .handle((response, error) -> {
                    if (error == null) {
                        ledger.record(Answer.of(target, pod, sentNanos, sentWall, response));
                    } else {
                        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                        Answer.Kind kind = cause instanceof HttpTimeoutException ? Answer.Kind.CLIENT_TIMEOUT : Answer.Kind.FAILED;
                        ledger.record(Answer.none(target, pod, sentNanos, sentWall, kind, cause));
                    }
                    openPermits.release();
                    return null;
                });
        inFlight.add(call);
        call.whenComplete((ignored, error) -> inFlight.remove(call));
    }

    private HttpRequest request(Target target, int pod) {
        return HttpRequest.newBuilder(pods.get(pod).check())
                .timeout(clientTimeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(target.body()))
                .build();
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        AtomicInteger n = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, name + "-" + n.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
