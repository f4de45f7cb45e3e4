package dev.tollgate.store.spring;

import io.lettuce.core.SslOptions;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/**
 * Lettuce's TLS from a Spring Boot SSL bundle ({@code spring.ssl.bundle.*}), read again for every new
 * connection. Spring Boot reads a bundle's managers once, when it builds the client; with the bundle's
 * {@code reload-on-update}, Boot reloads the bundle when its files change (a renewed CA or client
 * certificate from a Kubernetes Secret), and a connection made after that trusts the new CA, with no
 * restart and no JVM-wide truststore. Connections already open keep the handshake they made.
 *
 * <p>A CA rotation therefore goes: put the new CA beside the old one in the bundle's PEM, let the pods
 * pick it up, move the servers to certificates of the new CA, then drop the old one.
 */
public final class BundleTls {

    private BundleTls() {
    }

    /** TLS options whose key and trust managers, ciphers and protocols are the named bundle's as it is when a connection is made. */
    public static SslOptions following(SslBundles bundles, String name) {
        bundles.getBundle(name); // an unknown name fails at start-up, naming it, not on the first connection
        return SslOptions.builder()
                .jdkSslProvider()
                .sslContext(context -> {
                    SslBundle bundle = bundles.getBundle(name);
                    context.keyManager(bundle.getManagers().getKeyManagerFactory())
                            .trustManager(bundle.getManagers().getTrustManagerFactory());
                    if (bundle.getOptions().getCiphers() != null) {
                        context.ciphers(java.util.List.of(bundle.getOptions().getCiphers()));
                    }
                    if (bundle.getOptions().getEnabledProtocols() != null) {
                        context.protocols(bundle.getOptions().getEnabledProtocols());
                    }
                })
                .build();
    }
}
