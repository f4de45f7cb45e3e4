package dev.tollgate.gateway;

import dev.tollgate.client.ClientSettings;
import dev.tollgate.client.FailMode;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * {@code tollgate.gateway.*}: where the limiter's checks go and how keys are read.
 *
 * @param mode     {@code client} (check-service over HTTP, the default) or {@code embedded} (a {@code Limiter} bean the
 *                 application defines, in the gateway's process)
 * @param failMode what a request gets when Tollgate cannot answer: {@code allow} (default), {@code deny}, {@code error}
 */
@ConfigurationProperties("tollgate.gateway")
public record TollgateGatewayProperties(Mode mode, FailMode failMode, Client client, Keys keys) {

    public enum Mode { CLIENT, EMBEDDED }

    public TollgateGatewayProperties {
        mode = mode == null ? Mode.CLIENT : mode;
        failMode = failMode == null ? ClientSettings.DEFAULTS.failMode() : failMode;
        client = client == null ? new Client(null, null, null, null, null, null, null) : client;
        keys = keys == null ? new Keys(null, null) : keys;
    }

    /**
     * How to reach check-service: exactly one of {@code endpoint} (a Service address, no key affinity), {@code pods}
     * (a static list, key affinity) or {@code dnsService} (a headless Service's A records, key affinity).
     *
     * @param dnsPort    the pods' check port with {@code dnsService} (default 8080)
     * @param dnsRefresh how often the A records are asked again (default 5 s)
     * @param deadline   the longest a check takes before the fail mode answers (default 100 ms)
     * @param token      check-service's service token ({@code tollgate.access.tokens}), if it asks for one
     */
    public record Client(URI endpoint, List<URI> pods, String dnsService, Integer dnsPort, Duration dnsRefresh, Duration deadline,
                         String token) {

        public Client {
            pods = pods == null ? List.of() : List.copyOf(pods);
            dnsPort = dnsPort == null ? 8080 : dnsPort;
            dnsRefresh = dnsRefresh == null ? Duration.ofSeconds(5) : dnsRefresh;
            deadline = deadline == null ? ClientSettings.DEFAULTS.deadline() : deadline;
        }

        @Override
        public String toString() {
            return "Client[endpoint=" + endpoint + ", pods=" + pods + ", dnsService=" + dnsService + ", dnsPort=" + dnsPort
                    + ", dnsRefresh=" + dnsRefresh + ", deadline=" + deadline + ", token=" + (token == null ? "none" : "(set)") + "]";
        }

        int sourcesGiven() {
            return (endpoint == null ? 0 : 1) + (pods.isEmpty() ? 0 : 1) + (dnsService == null || dnsService.isBlank() ? 0 : 1);
        }
    }

    /**
     * @param accountHeader  the header {@code tollgateAccountKeyResolver} reads (default {@code X-Account-Id})
     * @param trustedProxies load balancers in front of the gateway that append to {@code X-Forwarded-For}, for
     *                       {@code tollgateIpKeyResolver} (default 0: the socket's peer)
     */
    public record Keys(String accountHeader, Integer trustedProxies) {

        public Keys {
            accountHeader = accountHeader == null || accountHeader.isBlank() ? "X-Account-Id" : accountHeader;
            trustedProxies = trustedProxies == null ? 0 : trustedProxies;
        }
    }
}
