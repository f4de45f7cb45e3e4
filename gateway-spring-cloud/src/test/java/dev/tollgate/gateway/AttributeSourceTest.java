package dev.tollgate.gateway;

import dev.tollgate.gateway.key.AttributeSource;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AttributeSourceTest {

    @Test
    void readsEachFormARouteCanWrite() {
        assertThat(AttributeSource.parse("a", "header:X-Plan")).isEqualTo(new AttributeSource(AttributeSource.Kind.HEADER, "X-Plan"));
        assertThat(AttributeSource.parse("a", " claim: plan ")).isEqualTo(new AttributeSource(AttributeSource.Kind.CLAIM, "plan"));
        assertThat(List.of("route-id", "path", "remote-address", "principal")).allSatisfy(spec ->
                assertThat(AttributeSource.parse("a", spec).toString()).isEqualTo(spec));
    }

    @Test
    void refusesWhatIsNotASourceSayingWhatToWrite() {
        assertThatThrownBy(() -> AttributeSource.parse("tollgate-rate-limiter.attributes.plan", "cookie:plan"))
                .hasMessageContaining("tollgate-rate-limiter.attributes.plan").hasMessageContaining("header:<name>, claim:<name>");
        assertThatThrownBy(() -> AttributeSource.parse("x", "header:")).hasMessageContaining("without a name");
        assertThatThrownBy(() -> AttributeSource.parse("x", "path:/v1")).hasMessageContaining("takes no name");
        assertThatThrownBy(() -> AttributeSource.parse("x", " ")).hasMessageContaining("is empty");
    }
}
