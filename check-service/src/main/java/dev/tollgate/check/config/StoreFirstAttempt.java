package dev.tollgate.check.config;

import dev.tollgate.store.RedisCounterStore;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.SmartLifecycle;

/**
 * Waits for the counter store's first connect attempt just before the HTTP and gRPC ports open, as the
 * store's bean once did while it was created: against a healthy cluster the first checks a started pod
 * answers are enforced, and a cluster that is down holds the start up by the same bound (three connect
 * timeouts) as before; attempts then go on in the background and readiness says when the store is reached.
 * Waiting here rather than in the bean lets the attempt overlap the rest of the context's creation.
 */
final class StoreFirstAttempt implements SmartLifecycle {

    /** Before the web servers (and, after them, the gRPC server) take connections. */
    static final int PHASE = WebServerApplicationContext.START_STOP_LIFECYCLE_PHASE - 1024;

    private final RedisCounterStore store;
    private volatile boolean running;

    StoreFirstAttempt(RedisCounterStore store) {
        this.store = store;
    }

    @Override
    public void start() {
        store.awaitFirstAttempt();
        running = true;
    }

    @Override
    public void stop() {
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
