package dev.tollgate.check.startup;

import dev.tollgate.limiter.Limiter;
import dev.tollgate.store.RedisCounterStore;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.SmartLifecycle;

/**
 * Waits for the counter store's first connect attempt just before the HTTP and gRPC ports open, as the
 * store's bean once did while it was created: against a healthy cluster the first checks a started pod
 * answers are enforced, and a cluster that is down holds the start up by the same bound (three connect
 * timeouts) as before; attempts then go on in the background and readiness says when the store is reached.
 * Waiting here rather than in the bean lets the attempt overlap the rest of the context's creation. Once
 * connected, the engine readies what a cold pod's first check on each shard could not do within its
 * deadline ({@link Limiter#prepare()}).
 */
final class StoreFirstAttempt implements SmartLifecycle {

    /** Before the web servers (and, after them, the gRPC server) take connections. */
    static final int PHASE = WebServerApplicationContext.START_STOP_LIFECYCLE_PHASE - 1024;

    private final RedisCounterStore store;
    private final Limiter limiter;
    private volatile boolean running;

    StoreFirstAttempt(RedisCounterStore store, Limiter limiter) {
        this.store = store;
        this.limiter = limiter;
    }

    @Override
    public void start() {
        store.awaitFirstAttempt();
        if (store.isConnected()) {
            limiter.prepare();
        } else {
            // a pod started before its cluster, or while it fails over: readied once the store connects
            store.whenConnected().thenRunAsync(limiter::prepare);
        }
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
