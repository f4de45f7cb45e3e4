package dev.tollgate.gateway;

import dev.tollgate.client.ClientHealth;
import dev.tollgate.client.TollgateClient;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * {@code tollgateClient} in {@code /actuator/health}: DOWN while the client knows no check-service pod, when every
 * request is answered by the gateway's fail mode and no limit holds (a headless Service with no ready pod, a DNS
 * name that does not resolve). Pods known but marked down are UP: each is probed again within seconds, and the
 * checks meanwhile go to the keys' other pods.
 */
final class TollgateClientHealthIndicator extends AbstractHealthIndicator {

    private final TollgateClient client;

    TollgateClientHealthIndicator(TollgateClient client) {
        super("Tollgate client health check failed");
        this.client = client;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        ClientHealth health = client.health();
        if (health.podsKnown()) {
            builder.up();
        } else {
            builder.down().withDetail("reason", "no check-service pod is known: every check is answered by the fail mode "
                    + client.settings().failMode() + " and no limit holds");
        }
        builder.withDetail("knownPods", health.knownPods())
                .withDetail("downPods", health.downPods())
                .withDetail("source", health.source());
    }
}
