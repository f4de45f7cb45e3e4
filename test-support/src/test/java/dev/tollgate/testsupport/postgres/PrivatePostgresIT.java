package dev.tollgate.testsupport.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

class PrivatePostgresIT {

    @AfterEach
    void clearProperty() {
        System.clearProperty(Postgres.EMBEDDED_PROPERTY);
    }

    @Test
    void keepsPortAndDataAcrossStopAndStart() throws SQLException {
        try (Postgres postgres = Postgres.startPrivate()) {
            assertSurvivesAnOutage(postgres);
        }
    }

    /** The path CI takes where root cannot use user namespaces: the binaries run as another user. */
    @Test
    @EnabledOnOs(OS.LINUX)
    void runsAsAnUnprivilegedUserWhenForced() throws SQLException {
        System.setProperty(Postgres.EMBEDDED_PROPERTY, "unprivileged");

        try (Postgres postgres = Postgres.startPrivate()) {
            assertThat(postgres.toString()).contains("run as nobody");
            assertSurvivesAnOutage(postgres);
        }
    }

    @Test
    void removesItsFilesWhenClosed() {
        Path directory;
        try (Postgres postgres = Postgres.startPrivate()) {
            directory = Path.of(postgres.toString().replaceAll(".* in (/\\S+), database.*", "$1"));
            assertThat(directory).isDirectory();
        }
        assertThat(Files.exists(directory)).isFalse();
    }

    private static void assertSurvivesAnOutage(Postgres postgres) throws SQLException {
        DataSource dataSource = postgres.dataSource();
        execute(dataSource, "create table lease (id int primary key, holder text)");
        execute(dataSource, "insert into lease values (1, 'check-service-a')");
        int port = postgres.port();

        postgres.stop();
        assertThatThrownBy(() -> execute(dataSource, "select 1")).isInstanceOf(SQLException.class);
        postgres.start();

        assertThat(postgres.port()).isEqualTo(port);
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("select holder from lease where id = 1")) {
            assertThat(result.next()).isTrue();
            assertThat(result.getString(1)).isEqualTo("check-service-a");
        }
        postgres.restart();
        execute(dataSource, "insert into lease values (2, 'check-service-b')");
    }

    private static void execute(DataSource dataSource, String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
