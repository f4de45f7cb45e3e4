package dev.tollgate.rules.security;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.security.web.util.matcher.RequestMatcher;

/**
 * Requests that arrived on the management server's own port ({@code management.server.port}, set by the
 * chart). That port serves actuator only and is on no Service: Prometheus scrapes it and the kubelet probes
 * it without a token, while the API port keeps asking for one. The port is learnt when the management
 * server starts (it may be 0, a random port, in tests); until then, and when actuator shares the API port,
 * nothing matches.
 */
final class ManagementPortRequests implements RequestMatcher, ApplicationListener<WebServerInitializedEvent> {

    private static final String MANAGEMENT_NAMESPACE = "management";

    private volatile int port = -1;

    @Override
    public void onApplicationEvent(WebServerInitializedEvent event) {
        if (MANAGEMENT_NAMESPACE.equals(event.getApplicationContext().getServerNamespace())) {
            port = event.getWebServer().getPort();
        }
    }

    @Override
    public boolean matches(HttpServletRequest request) {
        int management = port;
        return management > 0 && request.getLocalPort() == management;
    }
}
