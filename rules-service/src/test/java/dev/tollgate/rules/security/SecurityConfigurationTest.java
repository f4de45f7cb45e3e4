package dev.tollgate.rules.security;

import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SecurityConfigurationTest {

    @Test
    void aStaticTokenNeedsTheDevProfile() {
        MockEnvironment production = new MockEnvironment();
        MockEnvironment dev = new MockEnvironment();
        dev.setActiveProfiles("dev");

        assertThatThrownBy(() -> SecurityConfiguration.requireDevProfileForStaticToken(new SecurityProperties("secret"), production))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'dev' profile is not active");
        assertThatCode(() -> SecurityConfiguration.requireDevProfileForStaticToken(new SecurityProperties("secret"), dev))
                .doesNotThrowAnyException();
        assertThatCode(() -> SecurityConfiguration.requireDevProfileForStaticToken(new SecurityProperties(" "), production))
                .doesNotThrowAnyException();
    }

    @Test
    void theStaticTokenIsSubjectDevWithEveryScopeAndPassesOtherTokensOn() {
        StaticTokenAuthenticationProvider provider = new StaticTokenAuthenticationProvider("secret");

        Authentication dev = provider.authenticate(new BearerTokenAuthenticationToken("secret"));

        assertThat(dev.getName()).isEqualTo("dev");
        assertThat(dev.getAuthorities()).extracting(GrantedAuthority::getAuthority)
                .containsExactlyInAnyOrder("SCOPE_ratelimit:admin", "SCOPE_ratelimit:read", "SCOPE_ratelimit:watch");
        assertThat(provider.authenticate(new BearerTokenAuthenticationToken("secreT"))).isNull();
    }
}
