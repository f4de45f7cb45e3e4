package dev.tollgate.store;

import io.lettuce.core.resource.EventLoopGroupProvider;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link RedisCounterStore#sharedLoops}: Lettuce gets the owner's loops, and cannot shut them down. */
class SharedLoopsTest {

    @Test
    void lettuceGetsTheOwnersLoopsAndLeavesThemRunning() throws Exception {
        EventLoopGroup owners = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        try {
            EventLoopGroupProvider provider = RedisCounterStore.sharedLoops(owners);

            // asked by its transport's class, as Lettuce asks
            EventLoopGroup given = provider.allocate(NioEventLoopGroup.class);
            assertThat(given).as("the loops Lettuce registers its channels on").containsExactlyElementsOf(owners);
            assertThat(provider.threadPoolSize()).isEqualTo(2);

            assertThat(provider.release(given, 0, 1, TimeUnit.SECONDS).get(1, TimeUnit.SECONDS)).isTrue();
            assertThat(provider.shutdown(0, 1, TimeUnit.SECONDS).get(1, TimeUnit.SECONDS)).isTrue();
            given.shutdownGracefully(0, 1, TimeUnit.SECONDS).get(1, TimeUnit.SECONDS);
            assertThat(owners.isShuttingDown()).as("the owner's loops after Lettuce let go of them").isFalse();
            assertThat(owners.submit(() -> "still running").get(1, TimeUnit.SECONDS)).isEqualTo("still running");
        } finally {
            owners.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
