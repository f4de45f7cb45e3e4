package dev.tollgate.client.affinity;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.resolver.ResolvedAddressTypes;
import io.netty.resolver.dns.DnsNameResolver;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.DnsServerAddressStreamProvider;
import io.netty.resolver.dns.DnsServerAddressStreamProviders;
import io.netty.resolver.dns.NoopDnsCache;
import io.netty.resolver.dns.SingletonDnsServerAddressStreamProvider;
import io.netty.util.concurrent.DefaultThreadFactory;
import reactor.util.Logger;
import reactor.util.Loggers;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The pods behind a Kubernetes headless Service: its DNS A records (one per ready pod), asked again every
 * {@code refresh}, bypassing the JVM's and the resolver's caches (the JVM keeps a name for 30 s, the resolver for the
 * record's TTL), so a pod that left the Service stops receiving keys within one refresh. A failed or empty lookup
 * keeps the last pods known: a DNS blip must not leave the client with none.
 */
public final class DnsPodSource implements PodSource {

    private static final Logger log = Loggers.getLogger(DnsPodSource.class);
    /** One lookup's limit; a refresh shorter than this may overlap the previous lookup, which does no harm. */
    private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(2);

    private final String host;
    private final int port;
    private final EventLoopGroup loop;
    private final DnsNameResolver resolver;
    private volatile List<URI> pods = List.of();

    private DnsPodSource(String host, int port, DnsServerAddressStreamProvider nameServers, Duration queryTimeout) {
        this.host = host;
        this.port = port;
        this.loop = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("tollgate-client-dns", true), NioIoHandler.newFactory());
        EventLoop eventLoop = loop.next();
        this.resolver = new DnsNameResolverBuilder(eventLoop)
                .datagramChannelType(NioDatagramChannel.class)
                .nameServerProvider(nameServers)
                .resolveCache(NoopDnsCache.INSTANCE)
                .resolvedAddressTypes(ResolvedAddressTypes.IPV4_ONLY)
                .queryTimeoutMillis(queryTimeout.toMillis())
                .build();
    }

    /** The Service's pods as the platform's resolvers ({@code /etc/resolv.conf}) answer; {@code port}: the pods' HTTP check port. */
    public static DnsPodSource start(String serviceHost, int port, Duration refresh) {
        return start(serviceHost, port, refresh, DnsServerAddressStreamProviders.platformDefault());
    }

    /** The same, asking one given name server. */
    public static DnsPodSource start(String serviceHost, int port, Duration refresh, InetSocketAddress nameServer) {
        return start(serviceHost, port, refresh, new SingletonDnsServerAddressStreamProvider(nameServer));
    }

    private static DnsPodSource start(String serviceHost, int port, Duration refresh, DnsServerAddressStreamProvider nameServers) {
        if (serviceHost == null || serviceHost.isBlank()) {
            throw new IllegalArgumentException("name the headless Service, e.g. tollgate-check-service-headless.tollgate.svc.cluster.local");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("the pods' check port must be 1-65535, was " + port);
        }
        if (refresh == null || refresh.isNegative() || refresh.isZero()) {
            throw new IllegalArgumentException("refresh must be a positive duration, was " + refresh);
        }
        DnsPodSource source = new DnsPodSource(serviceHost, port, nameServers, QUERY_TIMEOUT);
        CountDownLatch first = new CountDownLatch(1);
        source.refresh(first);
        try {
            // a first answer before the first check, if the DNS gives one soon; checks meanwhile get the fail mode
            first.await(QUERY_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        source.loop.scheduleAtFixedRate(() -> source.refresh(null), refresh.toNanos(), refresh.toNanos(), TimeUnit.NANOSECONDS);
        return source;
    }

    @Override
    public List<URI> pods() {
        return pods;
    }

    private void refresh(CountDownLatch done) {
        resolver.resolveAll(host).addListener(future -> {
            try {
                if (!future.isSuccess()) {
                    log.warn("DNS lookup of {} failed, keeping the {} pods known: {}", host, pods.size(), future.cause().toString());
                    return;
                }
                @SuppressWarnings("unchecked")
                List<InetAddress> addresses = (List<InetAddress>) future.getNow();
                List<URI> found = new ArrayList<>();
                for (InetAddress address : addresses) {
                    if (address instanceof Inet4Address) {
                        found.add(URI.create("http://" + address.getHostAddress() + ":" + port));
                    }
                }
                found.sort(Comparator.comparing(URI::toString));
                if (found.isEmpty()) {
                    log.warn("DNS lookup of {} found no pod, keeping the {} pods known", host, pods.size());
                } else if (!found.equals(pods)) {
                    pods = List.copyOf(found);
                }
            } finally {
                if (done != null) {
                    done.countDown();
                }
            }
        });
    }

    @Override
    public String describe() {
        return "the DNS A records of " + host + " (port " + port + ")";
    }

    @Override
    public void close() {
        resolver.close();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
