package dev.tollgate.check.envoy;

import dev.tollgate.testsupport.redis.RedisCluster;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static dev.tollgate.check.envoy.EnvoyPod.descriptor;
import static dev.tollgate.check.envoy.EnvoyPod.request;
import static dev.tollgate.check.tls.RedisTlsBundleIT.keytool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The gRPC port over TLS from an SSL bundle ({@code tollgate.grpc.ssl-bundle}): a client that trusts the
 * certificate gets its verdict, a plaintext one gets nothing. The certificate is made by the JDK's keytool.
 */
class RlsTlsIT {

    private static final String PASSWORD = "changeit";

    @Test
    void aBundlesCertificateServesTheRateLimitServiceOverTlsOnly() throws Exception {
        Path dir = Files.createTempDirectory("tollgate-grpc-tls");
        keytool("-genkeypair", "-alias", "rls", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=localhost", "-validity", "2",
                "-ext", "san=ip:127.0.0.1,dns:localhost", "-keystore", dir.resolve("rls.p12").toString(), "-storetype", "PKCS12",
                "-storepass", PASSWORD);
        keytool("-exportcert", "-alias", "rls", "-keystore", dir.resolve("rls.p12").toString(), "-storepass", PASSWORD, "-rfc",
                "-file", dir.resolve("rls.crt").toString());

        try (EnvoyPod pod = EnvoyPod.start("rls-tls-it", RedisCluster.shared().clusterNodes(), Map.of(
                "tollgate.grpc.ssl-bundle", "rls",
                "spring.ssl.bundle.jks.rls.keystore.location", "file:" + dir.resolve("rls.p12"),
                "spring.ssl.bundle.jks.rls.keystore.password", PASSWORD,
                "spring.ssl.bundle.jks.rls.keystore.type", "PKCS12"))) {
            int port = pod.context.getBean(RlsServer.class).port();
            ManagedChannel tls = NettyChannelBuilder.forAddress("127.0.0.1", port)
                    .sslContext(GrpcSslContexts.forClient().trustManager(dir.resolve("rls.crt").toFile()).build()).build();
            try {
                assertThat(RateLimitServiceGrpc.newBlockingStub(tls).withDeadlineAfter(10, TimeUnit.SECONDS)
                        .shouldRateLimit(request("envoy", descriptor("account", "acct_tls"))).getOverallCode()).isEqualTo(Code.OK);
            } finally {
                tls.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
            // the pod's own test channel is plaintext: refused
            assertThatThrownBy(() -> pod.shouldRateLimit(request("envoy", descriptor("account", "acct_tls"))))
                    .isInstanceOfSatisfying(StatusRuntimeException.class,
                            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
        }
    }
}
