package dev.tollgate.gateway.app;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/** A Spring Cloud Gateway application with nothing of its own: routes from configuration, Tollgate's limiter by auto-configuration. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class GatewayApp {
}
