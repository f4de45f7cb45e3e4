package dev.tollgate.rules.security;

import org.junit.jupiter.api.Test;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;

import static org.assertj.core.api.Assertions.assertThat;

class SecurityConfigurationTest {

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
