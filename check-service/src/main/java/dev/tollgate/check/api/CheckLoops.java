package dev.tollgate.check.api;

import org.springframework.beans.factory.DisposableBean;
import reactor.netty.resources.LoopResources;

import java.time.Duration;

/**
 * The check port's event loops ({@link EventLoops}), disposed when the context's beans are destroyed: after every
 * bean created with them, the store's Lettuce client among them, which has channels registered on them.
 */
public final class CheckLoops implements DisposableBean {

    private final LoopResources resources;
    private final Duration quietPeriod;

    CheckLoops(LoopResources resources, Duration quietPeriod) {
        this.resources = resources;
        this.quietPeriod = quietPeriod;
    }

    LoopResources resources() {
        return resources;
    }

    /** Whether these are the loops a resource factory serves: the pod's own, not an embedder's. */
    public boolean lentTo(LoopResources loops) {
        return loops == resources;
    }

    @Override
    public void destroy() {
        resources.disposeLater(quietPeriod, Duration.ofSeconds(LoopResources.DEFAULT_SHUTDOWN_TIMEOUT)).block();
    }
}
