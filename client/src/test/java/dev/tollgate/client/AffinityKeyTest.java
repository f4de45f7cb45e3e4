package dev.tollgate.client;

import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class AffinityKeyTest {

    @Test
    void aNamedCheckGoesByItsFirstEntrysKey() {
        assertThat(TollgateClient.affinityKey(new CheckRequest("d", List.of(CheckEntry.of("r", "acct_1", 1), CheckEntry.of("s", "acct_2", 1)))))
                .isEqualTo("acct_1");
    }

    @Test
    void aCheckByAttributesGoesByItsApiKeyElseItsUserElseItsIp() {
        assertThat(TollgateClient.affinityKey(CheckRequest.byAttributes("d", Map.of("plan", "p", "api_key", "k", "user", "u", "ip", "1.2.3.4"), 1)))
                .isEqualTo("k");
        assertThat(TollgateClient.affinityKey(CheckRequest.byAttributes("d", Map.of("plan", "p", "user", "u", "ip", "1.2.3.4"), 1)))
                .isEqualTo("u");
        assertThat(TollgateClient.affinityKey(CheckRequest.byAttributes("d", Map.of("route", "/login", "ip", "1.2.3.4"), 1)))
                .isEqualTo("1.2.3.4");
        assertThat(TollgateClient.affinityKey(CheckRequest.byAttributes("d", Map.of("plan", "p"), 1))).isEmpty();
    }
}
