package dev.tollgate.rebalancer;

import dev.tollgate.testsupport.postgres.Postgres;
import dev.tollgate.testsupport.redis.RedisCluster;
import org.flywaydb.core.Flyway;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Three regions as the design draws them, for integration tests: a private Redis Cluster per region
 * (us-east, eu-west, ap-south, default split 60/25/15) and a fresh rules-store database on the shared
 * PostgreSQL, migrated from the tollgate-db jar. Closing it stops the clusters.
 */
final class ThreeRegions implements AutoCloseable {

    static final List<String> NAMES = List.of("us-east", "eu-west", "ap-south");
    static final double[] DEFAULT_SPLIT = {0.60, 0.25, 0.15};

    private final List<RedisCluster> clusters;
    private final Postgres postgres = Postgres.shared();
    final String jdbcUrl;

    ThreeRegions(String database) {
        // in parallel: each cluster spends most of its ~2 s start waiting on Redis's writable delay
        List<CompletableFuture<RedisCluster>> starting = new ArrayList<>();
        for (int i = 0; i < NAMES.size(); i++) {
            starting.add(CompletableFuture.supplyAsync(() -> RedisCluster.builder().start()));
        }
        this.clusters = starting.stream().map(CompletableFuture::join).toList();
        this.jdbcUrl = postgres.newDatabase(database);
        Flyway.configure().dataSource(jdbcUrl, postgres.username(), postgres.password())
                .locations("classpath:db/migration").load().migrate();
    }

    RedisCluster cluster(String region) {
        return clusters.get(NAMES.indexOf(region));
    }

    List<String> seeds(String region) {
        return cluster(region).seedUris();
    }

    /** Stops one region's whole cluster: its usage can no longer be read or written. */
    void stopRegion(String region) {
        cluster(region).close();
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, postgres.username(), postgres.password());
    }

    /** A token bucket on an account's api key: a limit the rebalancer splits. */
    void createTokenBucketRule(String ruleId, int ratePerS, int burst) throws SQLException {
        createTokenBucketRule(ruleId, "api_key", ratePerS, burst);
    }

    /** @param identity as the rules store spells it: api_key, ip or user */
    void createTokenBucketRule(String ruleId, String identity, int ratePerS, int burst) throws SQLException {
        try (Connection connection = connect();
             PreparedStatement insert = connection.prepareStatement("INSERT INTO rules (rule_id, domain, match_plan, identity, algorithm, rate_per_s, burst)"
                     + " VALUES (?, 'public-api', 'growth', ?, 'token_bucket', ?, ?)")) {
            insert.setString(1, ruleId);
            insert.setString(2, identity);
            insert.setInt(3, ratePerS);
            insert.setInt(4, burst);
            insert.executeUpdate();
        }
    }

    /** A key's rows, region to share; empty when it has none (the default split). */
    Map<String, Double> shares(String ruleId, String key) throws SQLException {
        Map<String, Double> shares = new LinkedHashMap<>();
        try (Connection connection = connect();
             PreparedStatement select = connection.prepareStatement(
                     "SELECT region, share FROM region_budgets WHERE rule_id = ? AND limit_key = ? ORDER BY region")) {
            select.setString(1, ruleId);
            select.setString(2, key);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    shares.put(rows.getString(1), rows.getDouble(2));
                }
            }
        }
        return shares;
    }

    void execute(String sql) throws SQLException {
        try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.execute();
        }
    }

    long count(String sql) throws SQLException {
        try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(sql);
             ResultSet result = statement.executeQuery()) {
            result.next();
            return result.getLong(1);
        }
    }

    /** Properties of a rebalancer over the three regions, with test timings. */
    Map<String, Object> rebalancerProperties(Duration period) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("server.port", "0");
        properties.put("spring.main.banner-mode", "off");
        properties.put("spring.datasource.url", jdbcUrl);
        properties.put("spring.datasource.username", postgres.username());
        properties.put("spring.datasource.password", postgres.password());
        for (int i = 0; i < NAMES.size(); i++) {
            properties.put("tollgate.regions." + NAMES.get(i) + ".redis.cluster.nodes", cluster(NAMES.get(i)).clusterNodes());
            properties.put("tollgate.regions." + NAMES.get(i) + ".default-share", Double.toString(DEFAULT_SPLIT[i]));
        }
        properties.put("tollgate.rebalancer.period", period.toMillis() + "ms");
        // the recorders in these tests flush every 200 ms
        properties.put("tollgate.rebalancer.usage-lag", "700ms");
        properties.put("tollgate.rebalancer.read-deadline", "1s");
        return properties;
    }

    /** Given as command-line arguments, so that they win over application.yml (default properties would not). */
    static ConfigurableApplicationContext startRebalancer(Map<String, Object> properties) {
        String[] args = properties.entrySet().stream().map(p -> "--" + p.getKey() + "=" + p.getValue()).toArray(String[]::new);
        return new SpringApplicationBuilder(RebalancerApplication.class).run(args);
    }

    @Override
    public void close() {
        for (RedisCluster cluster : clusters) {
            try {
                cluster.close();
            } catch (RuntimeException e) {
                // already stopped by a test
            }
        }
    }
}
