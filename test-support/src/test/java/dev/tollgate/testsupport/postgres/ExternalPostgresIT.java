package dev.tollgate.testsupport.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The TOLLGATE_TEST_PG_URL path, pointed at a private embedded server standing in for someone else's: it
 * creates only its own databases and drops exactly those when closed.
 */
class ExternalPostgresIT {

    @Test
    void createsAndDropsOnlyItsOwnDatabases() throws SQLException {
        try (Postgres owner = Postgres.startPrivate()) {
            String url = "jdbc:postgresql://" + owner.host() + ":" + owner.port() + "/postgres?ApplicationName=tollgate-it";
            List<String> before = databases(owner);

            Postgres guest = Postgres.on(new ExternalServer(url, owner.username(), owner.password()));
            String extra = guest.newDatabase("flyway");
            assertThat(guest.jdbcUrl()).startsWith("jdbc:postgresql://127.0.0.1:" + owner.port() + "/tollgate_").endsWith("?ApplicationName=tollgate-it");
            assertThat(extra).contains("/flyway_");
            try (Connection connection = guest.dataSource().getConnection()) {
                assertThat(connection.isValid(1)).isTrue();
            }
            assertThat(databases(owner)).hasSize(before.size() + 2);

            guest.close();

            assertThat(databases(owner)).containsExactlyInAnyOrderElementsOf(before);
        }
    }

    private static List<String> databases(Postgres postgres) throws SQLException {
        List<String> names = new ArrayList<>();
        try (Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("select datname from pg_database")) {
            while (result.next()) {
                names.add(result.getString(1));
            }
        }
        return names;
    }
}
