package dev.tollgate.common.rule;

import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class AccountOverrideTest {

    @Test
    void keepsItsExpiryToTheMicrosecondAsTheStoreDoes() {
        AccountOverride written = new AccountOverride("acct", "r", 5, 10, Instant.parse("2099-01-01T00:00:00.123456789Z"), null);

        assertThat(written.expiresAt()).isEqualTo(Instant.parse("2099-01-01T00:00:00.123456Z"));
        assertThat(written).isEqualTo(new AccountOverride("acct", "r", 5, 10, Instant.parse("2099-01-01T00:00:00.123456Z"), null));
    }

    @Test
    void anOverrideWithoutAnExpiryNeverExpires() {
        AccountOverride forever = new AccountOverride("acct", "r", 5, 10, null, null);

        assertThat(forever.expiresAt()).isNull();
        assertThat(forever.activeAt(Instant.parse("9999-12-31T23:59:59Z"))).isTrue();
    }
}
