package dev.tollgate.testsupport.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class SharedPostgresIT {

    private final Postgres postgres = Postgres.shared();

    @Test
    void answersQueriesThroughItsDataSource() throws SQLException {
        try (Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("select 1, current_database(), current_setting('server_version_num')::int")) {
            assertThat(result.next()).isTrue();
            assertThat(result.getInt(1)).isEqualTo(1);
            assertThat(postgres.jdbcUrl()).endsWith("/" + result.getString(2));
            assertThat(result.getInt(3)).isGreaterThanOrEqualTo(160000);
        }
    }

    @Test
    void hasOneInstancePerJvm() {
        assertThat(Postgres.shared()).isSameAs(postgres);
        assertThat(postgres.jdbcUrl()).startsWith("jdbc:postgresql://");
    }

    @Test
    void createsEmptyDatabasesOnDemand() throws SQLException {
        String first = postgres.newDatabase("Rules_IT");
        String second = postgres.newDatabase("rules_it");

        assertThat(first).isNotEqualTo(second).contains("/rules_it_");
        try (Connection connection = DriverManager.getConnection(first, postgres.username(), postgres.password());
                Statement statement = connection.createStatement()) {
            statement.execute("create table rule (id bigint primary key)");
            statement.execute("insert into rule values (1)");
        }
        try (Connection connection = DriverManager.getConnection(second, postgres.username(), postgres.password());
                Statement statement = connection.createStatement();
                ResultSet tables = statement.executeQuery("select count(*) from pg_tables where schemaname = 'public'")) {
            tables.next();
            assertThat(tables.getInt(1)).isZero();
        }
    }

    @Test
    void rejectsPrefixesThatAreNotPlainIdentifiers() {
        assertThatThrownBy(() -> postgres.newDatabase("x\"; drop")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> postgres.newDatabase("1abc")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void cannotBeStoppedOrClosedByATest() {
        assertThatThrownBy(postgres::close).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(postgres::stop).isInstanceOf(UnsupportedOperationException.class);
    }
}
