package dev.tollgate.store;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.AbstractEventExecutorGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The owner's event loops as Lettuce sees them (see {@link RedisCounterStore#sharedLoops}), choosing the loop each new
 * channel registers on so that a {@link Lanes lane}'s connections stay on its loop: the loop the same connection had
 * before (Lettuce reconnects from a thread of its own, with the bootstrap's same handler), else the loop named by
 * {@link #pinTo} on this thread (a lane opening), else the loop this thread is (a lane's connection to a node it meets
 * later, opened by a command sent from the lane's loop), else the owner's next one, round robin.
 *
 * <p>A reconnect over TLS builds a new handler, so it may land on another loop: that lane's calls to that node then hop
 * between loops, as one call in two did before lanes. Never shuts the loops down: their owner does.
 */
final class PinnedLoops extends AbstractEventExecutorGroup implements EventLoopGroup {

    private static final ThreadLocal<EventLoop> PINNED = new ThreadLocal<>();

    private final EventLoopGroup owners;
    private final List<EventLoop> loops;
    /** The loop each connection's bootstrap handler was registered on; forgotten with the connection. */
    private final Map<ChannelHandler, EventLoop> placed = Collections.synchronizedMap(new WeakHashMap<>());

    PinnedLoops(EventLoopGroup owners) {
        this.owners = owners;
        List<EventLoop> loops = new ArrayList<>();
        owners.forEach(executor -> loops.add((EventLoop) executor));
        this.loops = List.copyOf(loops);
    }

    List<EventLoop> loops() {
        return loops;
    }

    /** The index in {@link #loops()} of the loop this thread runs, or -1 on any other thread. */
    int current() {
        for (int i = 0; i < loops.size(); i++) {
            if (loops.get(i).inEventLoop()) {
                return i;
            }
        }
        return -1;
    }

    /** Runs {@code opening} with every channel it registers on this thread placed on {@code loop}. */
    static <T> T pinTo(EventLoop loop, Supplier<T> opening) {
        EventLoop before = PINNED.get();
        PINNED.set(loop);
        try {
            return opening.get();
        } finally {
            if (before == null) {
                PINNED.remove();
            } else {
                PINNED.set(before);
            }
        }
    }

    private EventLoop loopFor(Channel channel) {
        ChannelHandler handler = channel.pipeline().first();
        EventLoop before = handler == null ? null : placed.get(handler);
        if (before != null) {
            return before;
        }
        EventLoop loop = PINNED.get();
        if (loop == null) {
            int current = current();
            loop = current >= 0 ? loops.get(current) : owners.next();
        }
        if (handler != null) {
            placed.put(handler, loop);
        }
        return loop;
    }

    @Override
    public ChannelFuture register(Channel channel) {
        return loopFor(channel).register(channel);
    }

    @Override
    public ChannelFuture register(ChannelPromise promise) {
        return loopFor(promise.channel()).register(promise);
    }

    @Override
    @Deprecated
    public ChannelFuture register(Channel channel, ChannelPromise promise) {
        return loopFor(channel).register(channel, promise);
    }

    @Override
    public EventLoop next() {
        return owners.next();
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public Iterator<EventExecutor> iterator() {
        return (Iterator) loops.iterator();
    }

    // ---- the owner's to end: Lettuce is told the loops ended whenever it asks

    @Override
    public boolean isShuttingDown() {
        return owners.isShuttingDown();
    }

    @Override
    public Future<?> shutdownGracefully(long quietPeriod, long timeout, TimeUnit unit) {
        return ImmediateEventExecutor.INSTANCE.newSucceededFuture(null);
    }

    @Override
    public Future<?> terminationFuture() {
        return owners.terminationFuture();
    }

    @Override
    @Deprecated
    public void shutdown() {
    }

    @Override
    public boolean isShutdown() {
        return owners.isShutdown();
    }

    @Override
    public boolean isTerminated() {
        return owners.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return owners.awaitTermination(timeout, unit);
    }
}
