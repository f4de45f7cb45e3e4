package dev.tollgate.devstack.app;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * One started service.
 *
 * @param service which service it is
 * @param name    what the dev stack calls it in messages, e.g. {@code check-service #2}
 * @param address where it listens
 * @param port    the port it took
 * @param context its own application context: closing it stops the service and nothing else
 */
public record RunningApp(Service service, String name, String address, int port, ConfigurableApplicationContext context)
        implements AutoCloseable {

    public String baseUrl() {
        String host = address.contains(":") ? "[" + address + "]" : address;
        return "http://" + host + ":" + port;
    }

    @Override
    public void close() {
        context.close();
    }
}
