package dev.tollgate.rebalancer.store;

import java.sql.Connection;
import java.sql.SQLException;

/** Opens a new physical connection to the rules store: closing it ends the session (and frees its locks). */
@FunctionalInterface
public interface ConnectionSource {

    Connection open() throws SQLException;
}
