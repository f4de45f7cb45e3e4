package dev.tollgate.rules.security;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * @param devToken a static bearer token with every scope and subject {@code dev}, for local runs. The
 *                 service refuses to start with one outside the {@code dev} profile: a shared secret
 *                 that never expires and names no one has no place in front of production rules.
 */
@ConfigurationProperties("tollgate.security")
public record SecurityProperties(String devToken) {

    public SecurityProperties {
        devToken = devToken == null || devToken.isBlank() ? null : devToken;
    }

    @Override
    public String toString() {
        return "SecurityProperties[devToken=" + (devToken == null ? "none" : "****") + "]";
    }
}
