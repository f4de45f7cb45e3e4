package dev.tollgate.rules.usage;

import dev.tollgate.rules.problem.CounterStoreUnavailableException;
import dev.tollgate.store.read.CounterReads;
import dev.tollgate.store.spring.ClusterClients;
import dev.tollgate.store.spring.RetiredProperties;
import dev.tollgate.store.spring.SpringDataCounterReads;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.stereotype.Component;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The region's counter store as the usage endpoint reads it: the store's read port over the connection
 * Spring Boot configures from {@code spring.data.redis.*}, and every failure as a 503. It connects on
 * first use, not at start-up: rules-service must serve rules even while the region's Redis is down; only
 * the usage endpoint answers 503 then.
 */
@Component
public class CounterReader {

    private final CounterReads reads;
    private final long awaitMs;

    CounterReader(LettuceConnectionFactory redis, UsageProperties properties, Environment environment) {
        RetiredProperties.refuse(environment, RetiredProperties.USAGE_REDIS);
        // without cluster nodes Spring Boot builds a standalone factory for localhost: never read from that
        this.reads = ClusterClients.isCluster(redis) ? new SpringDataCounterReads(redis, properties.readTimeout()) : null;
        if (reads != null) {
            // connect in the background now, so that the first person to ask does not pay for the slot-map read and
            // the handshakes; a store that is down fails this quietly and is tried again on the next read
            reads.clockMs();
        }
        // a little over the read's own deadline, which answers first
        this.awaitMs = properties.readTimeout().toMillis() + 100;
    }

    public CounterReads reads() {
        if (reads == null) {
            throw new CounterStoreUnavailableException(
                    "No counter store is configured for this region (spring.data.redis.cluster.nodes).");
        }
        return reads;
    }

    public <T> T await(CompletableFuture<T> future) {
        try {
            return future.get(awaitMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable("interrupted");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw unavailable(cause instanceof TimeoutException ? "no answer in time" : String.valueOf(cause.getMessage()));
        } catch (TimeoutException e) {
            throw unavailable("no answer in time");
        }
    }

    private static CounterStoreUnavailableException unavailable(String why) {
        return new CounterStoreUnavailableException("The region's counter store (Redis) cannot be read: " + why);
    }
}
