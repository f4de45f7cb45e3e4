package dev.tollgate.rules.security;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.mock.web.MockHttpSession;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextImpl;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;

class TokenSessionExpiryTest {

    private static final Instant EXP = Instant.parse("2030-01-01T12:00:00Z");

    @AfterEach
    void clearContext() {
        SecurityContextHolder.clearContext();
    }

    @Test
    void aJwtSignInKeepsTheTokensExpiry() {
        TokenSession session = signIn(jwt("alice", EXP));

        assertThat(session.getName()).isEqualTo("alice");
        assertThat(session.getAuthorities()).extracting(Object::toString).containsExactly("SCOPE_ratelimit:read");
        assertThat(session.expiredAt(EXP.minusMillis(1))).isFalse();
        assertThat(session.expiredAt(EXP)).as("exp is the first instant the token is no longer accepted").isTrue();
    }

    @Test
    void theDevTokensSignInHasNoExpiry() {
        TokenSession session = signIn(UsernamePasswordAuthenticationToken.authenticated("dev", null,
                AuthorityUtils.createAuthorityList("SCOPE_ratelimit:admin")));

        assertThat(session.expiredAt(EXP.plus(Duration.ofDays(10_000)))).isFalse();
    }

    @Test
    void aSessionBeforeItsExpiryIsKept() throws Exception {
        MockHttpSession httpSession = new MockHttpSession();
        signedIn(new TokenSession("alice", AuthorityUtils.NO_AUTHORITIES, EXP));

        MockFilterChain chain = filterAt(EXP.minusSeconds(1), httpSession);

        assertThat(httpSession.isInvalid()).isFalse();
        assertThat(chain.getRequest()).as("the request goes on").isNotNull();
        assertThat(SecurityContextHolder.getContext().getAuthentication()).isInstanceOf(TokenSession.class);
    }

    @Test
    void aSessionAtItsExpiryIsInvalidatedAndTheRequestGoesOnWithoutIt() throws Exception {
        MockHttpSession httpSession = new MockHttpSession();
        signedIn(new TokenSession("alice", AuthorityUtils.NO_AUTHORITIES, EXP));

        MockFilterChain chain = filterAt(EXP, httpSession);

        assertThat(httpSession.isInvalid()).isTrue();
        assertThat(chain.getRequest()).as("the request goes on, as one without a session").isNotNull();
        assertThat(SecurityContextHolder.getContext().getAuthentication()).isNull();
    }

    @Test
    void aSignInOtherThanByTokenIsLeftAlone() throws Exception {
        MockHttpSession httpSession = new MockHttpSession();
        signedIn(UsernamePasswordAuthenticationToken.authenticated("sam", null, AuthorityUtils.NO_AUTHORITIES));

        filterAt(EXP.plus(Duration.ofDays(1)), httpSession);

        assertThat(httpSession.isInvalid()).isFalse();
    }

    private static TokenSession signIn(Authentication checked) {
        TokenSignIn signIn = new TokenSignIn(request -> token -> checked);
        return (TokenSession) signIn.authenticate(UsernamePasswordAuthenticationToken.unauthenticated("", "a-token"));
    }

    private static JwtAuthenticationToken jwt(String subject, Instant expiresAt) {
        Jwt jwt = Jwt.withTokenValue("a-token").header("alg", "RS256").subject(subject)
                .issuedAt(expiresAt.minus(Duration.ofMinutes(10))).expiresAt(expiresAt).build();
        return new JwtAuthenticationToken(jwt, AuthorityUtils.createAuthorityList("SCOPE_ratelimit:read"), subject);
    }

    private static void signedIn(Authentication authentication) {
        SecurityContextHolder.setContext(new SecurityContextImpl(authentication));
    }

    private static MockFilterChain filterAt(Instant now, MockHttpSession httpSession) throws Exception {
        MockHttpServletRequest request = new MockHttpServletRequest("GET", "/console/rules");
        request.setSession(httpSession);
        MockFilterChain chain = new MockFilterChain();
        new TokenSessionExpiry(Clock.fixed(now, ZoneOffset.UTC)).doFilter(request, new MockHttpServletResponse(), chain);
        return chain;
    }
}
