package dev.tollgate.rules.security;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.security.oauth2.client.registration.ClientRegistration;
import org.springframework.security.oauth2.client.registration.ClientRegistrationRepository;

import java.util.ArrayList;
import java.util.List;

/**
 * How a person signs in to the console, for its login page: the OAuth2 providers configured, and whether
 * the token form is on.
 *
 * @param token     the form that takes a token the API would take: on in the {@code dev} profile (its
 *                  static token) or with {@code tollgate.console.token-sign-in=true}
 * @param providers one link per OAuth2 client registration
 */
public record ConsoleSignIn(boolean token, List<Provider> providers) {

    public ConsoleSignIn {
        providers = List.copyOf(providers);
    }

    /** @param path where the sign-in starts (the authorization request, with PKCE) */
    public record Provider(String name, String path) {
    }

    /**
     * @param tokenSignIn the token form outside the dev profile: for a deployment without an OAuth2 client
     *                    registration yet, where staff paste a token from their identity provider
     */
    @ConfigurationProperties("tollgate.console")
    record Properties(boolean tokenSignIn) {
    }

    static ConsoleSignIn of(Properties properties, ClientRegistrationRepository clients, boolean devProfile) {
        List<Provider> providers = new ArrayList<>();
        if (clients instanceof Iterable<?> registrations) {
            for (Object registration : registrations) {
                ClientRegistration client = (ClientRegistration) registration;
                providers.add(new Provider(client.getClientName(),
                        ConsoleSecurityConfiguration.AUTHORIZATION_BASE + "/" + client.getRegistrationId()));
            }
        }
        return new ConsoleSignIn(devProfile || properties.tokenSignIn(), providers);
    }
}
