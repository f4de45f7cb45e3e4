package dev.tollgate.check;

import dev.tollgate.testsupport.redis.RedisCluster;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * The pod most of check-service's tests run: the JVM's shared Redis Cluster, a command timeout generous enough
 * for a loaded CI machine (these tests are about answers, not the store's timeouts), and a static rules file.
 */
public final class SharedClusterPod {

    private SharedClusterPod() {
    }

    /** Registers the pod's store and rules; {@code rulesFile} relative to check-service's directory. */
    public static void register(DynamicPropertyRegistry registry, String rulesFile) {
        registry.add("spring.data.redis.cluster.nodes", () -> RedisCluster.shared().clusterNodes());
        registry.add("tollgate.redis.command-timeout", () -> "2s");
        registry.add("tollgate.rules.file", () -> rulesFile);
    }
}
