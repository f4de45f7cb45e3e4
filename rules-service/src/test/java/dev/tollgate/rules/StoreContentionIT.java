package dev.tollgate.rules;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A writer outside the API that takes its locks in the other order (psql locking a rule's row, then
 * advancing the revision) deadlocks with the API's write, which takes the store lock first. PostgreSQL
 * breaks the cycle by rolling one of them back; when that is the API's, the caller must get a clear,
 * retryable answer, not a 500, and nothing may be half-changed.
 */
class StoreContentionIT extends ServiceTestBase {

    @Autowired
    DataSource dataSource;

    @Test
    void aWriteRolledBackByADeadlockIs503StoreBusyAndChangesNothing() throws Exception {
        String id = uniqueId("deadlock");
        assertThat(api.put("/v1/rules/" + id, tokenBucket("public-api", 100, 200)).status).isEqualTo(201);
        long revisionBefore = storeRevision();

        Api.Response answer;
        try (Connection psql = dataSource.getConnection()) {
            psql.setAutoCommit(false);
            try (Statement session = psql.createStatement()) {
                // the API's backend runs the deadlock check first (1 s default), so PostgreSQL rolls back the API's write
                session.execute("SET LOCAL deadlock_timeout = '20s'");
            }
            try (PreparedStatement lockRow = psql.prepareStatement("SELECT 1 FROM rules WHERE rule_id = ? FOR UPDATE")) {
                lockRow.setString(1, id);
                lockRow.executeQuery().close();
            }
            CompletableFuture<Api.Response> replace = CompletableFuture.supplyAsync(() ->
                    api.request("PUT", "/v1/rules/" + id).ifMatch(1).body(tokenBucket("public-api", 50, 200)).send());
            awaitABackendWaitingOnALock();
            try (Statement session = psql.createStatement()) {
                session.execute("SELECT advance_revision()");
            } catch (SQLException e) {
                throw new AssertionError("PostgreSQL rolled back the outside writer instead of the API's write", e);
            } finally {
                psql.rollback();
            }
            answer = replace.get(30, TimeUnit.SECONDS);
        }

        assertThat(answer.status).isEqualTo(503);
        assertThat(answer.json().get("code").asString()).isEqualTo("store_busy");
        assertThat(answer.header("Retry-After")).contains("1");
        assertThat(answer.header("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        Api.Response read = api.get("/v1/rules/" + id);
        assertThat(read.etag()).as("the rolled-back write left the rule as it was").isEqualTo("\"1\"");
        assertThat(read.json().get("rate_per_s").asInt()).isEqualTo(100);
        assertThat(storeRevision()).as("nor did it advance the revision").isEqualTo(revisionBefore);

        Api.Response retried = api.request("PUT", "/v1/rules/" + id).ifMatch(1).body(tokenBucket("public-api", 50, 200)).send();
        assertThat(retried.status).as("the retry the answer asks for goes through").isEqualTo(200);
    }

    private void awaitABackendWaitingOnALock() throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
        while (jdbc.sql("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()")
                .query(Long.class).single() == 0) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("the API's write never waited for the locked row");
            }
            Thread.sleep(20);
        }
    }
}
