package dev.tollgate.testsupport.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisURI;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NodeUriTest {

    @ParameterizedTest
    @ValueSource(strings = {"secret", "with space", "p@ss:w/rd%+?#"})
    void lettuceReadsBackThePassword(String password) {
        RedisURI uri = RedisURI.create(Node.uri("127.0.0.1:7000", password));

        assertThat(uri.getPassword()).isEqualTo(password.toCharArray());
        assertThat(uri.getHost()).isEqualTo("127.0.0.1");
        assertThat(uri.getPort()).isEqualTo(7000);
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1:7000"})
    void hasNoCredentialsWithoutAPassword(String hostAndPort) {
        assertThat(Node.uri(hostAndPort, null)).isEqualTo("redis://127.0.0.1:7000");
    }
}
