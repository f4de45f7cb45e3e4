package dev.tollgate.store;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reason a failed call is counted under ({@code outcome} of the store-call timer): a cluster failing over
 * or a node still loading is the shard being out, as a refused connection is; only an error the script itself
 * raised is a {@code script_error}, which the runbook reads as a bug or a key of the wrong type.
 */
class FailureReasonTest {

    private static final LuaScript SCRIPT = LuaScript.load("spend");

    @ParameterizedTest
    @ValueSource(strings = {
            "CLUSTERDOWN The cluster is down",
            "TRYAGAIN Multiple keys request during rehashing of slot",
            "MOVED 3999 127.0.0.1:6381",
            "ASK 3999 127.0.0.1:6381",
            "LOADING Redis is loading the dataset in memory",
            "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
            "READONLY You can't write against a read only replica.",
            "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."})
    void aNodeThatCannotServeNowIsUnavailable(String reply) {
        StoreException failure = RedisCounterStore.translate(SCRIPT, new RedisCommandExecutionException(reply));

        assertThat(failure.kind()).isEqualTo(StoreException.Kind.UNAVAILABLE);
        assertThat(failure.reason()).isEqualTo("unavailable");
        assertThat(failure.isKeyError()).isFalse();
        assertThat(failure.getMessage()).contains(reply.substring(0, reply.indexOf(' ')));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "ERR user_script:3: attempt to compare nil with number",
            "WRONGTYPE Operation against a key holding the wrong kind of value"})
    void anErrorOfTheScriptOrItsKeyIsAScriptErrorThatLeavesTheBreakerAlone(String reply) {
        StoreException failure = RedisCounterStore.translate(SCRIPT, new RedisCommandExecutionException(reply));

        assertThat(failure.reason()).isEqualTo("script_error");
        assertThat(failure.isKeyError()).isTrue();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "NOPERM this user has no permissions to run the 'evalsha' command | access_denied",
            "WRONGPASS invalid username-password pair or user is disabled. | access_denied"})
    void refusedCredentialsAreAccessDenied(String reply, String reason) {
        assertThat(RedisCounterStore.translate(SCRIPT, new RedisCommandExecutionException(reply)).reason()).isEqualTo(reason);
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aTimeoutOrALostConnectionKeepItsReason(boolean timeout) {
        StoreException failure = RedisCounterStore.translate(SCRIPT, timeout
                ? new RedisCommandTimeoutException("Command timed out after 5 millisecond(s)")
                : new RedisConnectionException("Connection refused: /127.0.0.1:7000"));

        assertThat(failure.reason()).isEqualTo(timeout ? "timeout" : "unavailable");
    }
}
