package dev.tollgate.bench.scale;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Puts every key's budget rows into {@code region_budgets} before the first cycle, as a rebalancer that
 * has run for a while would have left them: one row per key and region, the key's steady split. One
 * {@code COPY} (a million keys are three million rows: tens of seconds, where row-by-row inserts would
 * take many minutes), one statement trigger, so one store revision.
 */
final class BudgetSeed {

    private static final int BUFFER_BYTES = 1 << 20;

    private BudgetSeed() {
    }

    /** @return rows written */
    static long copy(Connection connection, Churn churn) throws SQLException {
        double[] shares = Churn.seededShares();
        CopyIn copy = connection.unwrap(PGConnection.class).getCopyAPI()
                .copyIn("COPY region_budgets (rule_id, limit_key, region, share) FROM STDIN");
        try {
            StringBuilder rows = new StringBuilder(BUFFER_BYTES + 1024);
            long written = 0;
            for (int key = 0; key < churn.keys(); key++) {
                for (int region = 0; region < Churn.REGIONS.size(); region++) {
                    rows.append(Churn.rule(key)).append('\t').append(Churn.limitKey(key)).append('\t')
                            .append(Churn.REGIONS.get(region)).append('\t').append(shares[region]).append('\n');
                    written++;
                }
                if (rows.length() >= BUFFER_BYTES) {
                    flush(copy, rows);
                }
            }
            flush(copy, rows);
            copy.endCopy();
            try (Statement analyze = connection.createStatement()) {
                analyze.execute("ANALYZE region_budgets");
            }
            return written;
        } finally {
            if (copy.isActive()) {
                copy.cancelCopy();
            }
        }
    }

    private static void flush(CopyIn copy, StringBuilder rows) throws SQLException {
        byte[] bytes = rows.toString().getBytes(StandardCharsets.UTF_8);
        copy.writeToCopy(bytes, 0, bytes.length);
        rows.setLength(0);
    }
}
