package dev.tollgate.store;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Which failed calls re-read the slot map, and how often: a loaded pod's timeouts must not start a refresh storm. */
class TopologyRefreshTest {

    private static final LuaScript SCRIPT = LuaScript.load("spend");

    private static long interval(Throwable cause) {
        return RedisCounterStore.refreshInterval(cause, RedisCounterStore.translate(SCRIPT, cause));
    }

    @Test
    void aTimeoutRefreshesAtMostEveryTwoSeconds() {
        assertThat(interval(new RedisCommandTimeoutException("Command timed out after 5 millisecond(s)")))
                .isEqualTo(TimeUnit.SECONDS.toNanos(2));
    }

    @Test
    void aLostOrRefusedConnectionRefreshesWithinAQuarterSecond() {
        assertThat(interval(new RedisConnectionException("Connection refused: /127.0.0.1:7000"))).isEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
        assertThat(interval(new RedisException("Currently not connected. Commands are rejected."))).isEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
    }

    @Test
    void theClustersOwnErrorsRefreshTheScriptsAndCredentialsDoNot() {
        assertThat(interval(new RedisCommandExecutionException("CLUSTERDOWN The cluster is down"))).isEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
        assertThat(interval(new RedisCommandExecutionException("TRYAGAIN Multiple keys request during rehashing of slot"))).isEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
        assertThat(interval(new RedisCommandExecutionException("ERR user_script:3: attempt to compare nil with number"))).isNegative();
        assertThat(interval(new RedisCommandExecutionException("NOPERM this user has no permissions to run the 'evalsha' command"))).isNegative();
        assertThat(interval(new RedisCommandExecutionException("WRONGPASS invalid username-password pair"))).isNegative();
    }
}
