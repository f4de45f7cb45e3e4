package dev.tollgate.rebalancer.config;

import dev.tollgate.rebalancer.budget.BudgetBook;
import dev.tollgate.rebalancer.budget.BudgetSplit;
import dev.tollgate.rebalancer.metrics.RebalancerMetrics;
import dev.tollgate.rebalancer.schedule.CycleScheduler;
import dev.tollgate.rebalancer.schedule.RebalanceCycle;
import dev.tollgate.rebalancer.store.BudgetStore;
import dev.tollgate.rebalancer.store.ConnectionSource;
import dev.tollgate.rebalancer.store.LeaderLock;
import dev.tollgate.rebalancer.usage.RegionEndpoint;
import dev.tollgate.rebalancer.usage.UsageReader;
import dev.tollgate.store.spring.ClusterClients;
import dev.tollgate.store.spring.RetiredProperties;
import dev.tollgate.store.spring.SpringDataCounterReads;
import io.lettuce.core.resource.ClientResources;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import java.sql.DriverManager;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/** Assembles the rebalancer from its properties: the regions, the split, the lock, the cycle and its schedule. */
@Configuration(proxyBeanMethods = false)
class RebalancerConfiguration {

    private static final Logger log = LoggerFactory.getLogger(RebalancerConfiguration.class);

    @Bean
    List<RegionsProperties.Resolved> regions(RegionsProperties regions) {
        List<RegionsProperties.Resolved> resolved = regions.resolve();
        log.info("rebalancing across {}", resolved.stream()
                .map(r -> r.name() + " (default share " + r.defaultShare() + ")").toList());
        return resolved;
    }

    @Bean
    BudgetSplit budgetSplit(List<RegionsProperties.Resolved> regions, RebalancerProperties rebalancer) {
        return new BudgetSplit(regions.stream().map(RegionsProperties.Resolved::name).toList(),
                regions.stream().mapToDouble(RegionsProperties.Resolved::defaultShare).toArray(), rebalancer.floor());
    }

    /** The other regions' connection factories: Spring Boot makes one, from spring.data.redis.*, for this region. */
    @Bean(destroyMethod = "close")
    RegionConnections regionConnections(ClientResources resources, ObjectProvider<SslBundles> bundles) {
        return new RegionConnections(resources, bundles.getIfAvailable());
    }

    /**
     * Each region's usage through the counter store's read port over Spring Data Redis: this instance's own
     * region on the factory Spring Boot configures from {@code spring.data.redis.*} unless its region names
     * a Redis of its own, every other region on one built from its {@code tollgate.regions} entry's {@code redis}.
     */
    @Bean
    UsageReader usageReader(List<RegionsProperties.Resolved> regions, RebalancerProperties rebalancer, LettuceConnectionFactory own,
                            RegionConnections connections, Environment environment) {
        RetiredProperties.refuse(environment, RetiredProperties.REDIS);
        List<RegionEndpoint> endpoints = new ArrayList<>();
        for (RegionsProperties.Resolved region : regions) {
            LettuceConnectionFactory factory = region.redis().map(redis -> connections.factory(region.property(), redis)).orElse(own);
            if (!ClusterClients.isCluster(factory)) {
                throw new IllegalStateException("spring.data.redis.cluster.nodes (SPRING_DATA_REDIS_CLUSTER_NODES): name region "
                        + region.name() + "'s Redis Cluster nodes (host:port, comma-separated), or give it " + region.property()
                        + ".redis.cluster.nodes");
            }
            endpoints.add(new RegionEndpoint(region.name(), new SpringDataCounterReads(factory, rebalancer.readDeadline())));
        }
        return new UsageReader(endpoints, rebalancer.readDeadline());
    }

    /**
     * The lock's connection is a plain one of its own, never a pooled one: returning a pooled connection
     * would leave its session, and so the lock, alive in the pool.
     */
    @Bean(destroyMethod = "close")
    LeaderLock leaderLock(JdbcConnectionDetails database, RebalancerProperties rebalancer) {
        ConnectionSource source = () -> {
            Properties properties = new Properties();
            if (database.getUsername() != null) {
                properties.setProperty("user", database.getUsername());
            }
            if (database.getPassword() != null) {
                properties.setProperty("password", database.getPassword());
            }
            // seconds; without them a half-open connection would hang a cycle until the kernel gives up
            properties.setProperty("connectTimeout", "5");
            properties.setProperty("socketTimeout", "300");
            properties.setProperty("tcpKeepAlive", "true");
            // shows in pg_stat_activity next to the lock, for whoever wonders which instance is active
            properties.setProperty("ApplicationName", "tollgate-budget-rebalancer");
            return DriverManager.getConnection(database.getJdbcUrl(), properties);
        };
        return new LeaderLock(source, rebalancer.lockKey());
    }

    @Bean
    RebalancerMetrics rebalancerMetrics(MeterRegistry registry) {
        return new RebalancerMetrics(registry);
    }

    @Bean
    RebalanceCycle rebalanceCycle(LeaderLock lock, UsageReader usage, BudgetSplit split, RebalancerMetrics metrics,
                                  RebalancerProperties rebalancer) {
        BudgetBook book = new BudgetBook(split, rebalancer.idleAfter(), rebalancer.minChange(), rebalancer.minUsage(),
                rebalancer.maxKeysPerCycle());
        return new RebalanceCycle(lock, usage, new BudgetStore(split.regions()), book, metrics, Clock.systemUTC(), rebalancer.usageLag());
    }

    @Bean
    CycleScheduler cycleScheduler(RebalanceCycle cycle, RebalancerProperties rebalancer) {
        return new CycleScheduler(cycle, rebalancer.period(), rebalancer.usageLag(), Clock.systemUTC());
    }
}
