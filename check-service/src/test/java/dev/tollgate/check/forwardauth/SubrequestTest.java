package dev.tollgate.check.forwardauth;

import dev.tollgate.check.config.CheckProperties;
import dev.tollgate.common.check.Attributes;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.check.CheckRequestValidator;
import dev.tollgate.limiter.rules.DescriptorBook;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A subrequest's headers as the attributes of a check: nothing the caller sends fails the check or lifts a limit. */
class SubrequestTest {

    private static final CheckProperties.ForwardAuth.Headers DEFAULTS = new CheckProperties.ForwardAuth.Headers(
            List.of("X-Original-URI", "X-Forwarded-Uri"), List.of("X-Original-Method", "X-Forwarded-Method"),
            "X-Plan", "X-Api-Key", "X-User", "X-Cost");

    private static CheckProperties.ForwardAuth settings(int trustedProxies, String realIpHeader) {
        return new CheckProperties.ForwardAuth("public-api", 429, trustedProxies, realIpHeader, DEFAULTS,
                Map.of("auth", new CheckProperties.ForwardAuth.Headers(List.of("X-Path"), List.of(), "X-Tier", "X-Key", "X-User", null)));
    }

    private static Map<String, String> attributes(HttpHeaders headers) {
        return read("public-api", headers, settings(1, null)).attributes();
    }

    private static CheckRequest read(String domain, HttpHeaders headers, CheckProperties.ForwardAuth settings) {
        Subrequest subrequest = Subrequest.read(domain, headers, "10.0.0.7", settings);
        assertThat(subrequest.problems()).isEmpty();
        CheckRequest request = subrequest.request().orElseThrow();
        assertThat(new CheckRequestValidator(64).problems(request)).isEmpty();
        return request;
    }

    private static HttpHeaders headers(String... namesAndValues) {
        HttpHeaders headers = new HttpHeaders();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            headers.add(namesAndValues[i], namesAndValues[i + 1]);
        }
        return headers;
    }

    @Test
    void readsTheDefaultHeaders() {
        Map<String, String> attributes = attributes(headers("X-Original-URI", "/v1//labels/?page=2", "X-Original-Method", "POST",
                "X-Plan", "growth", "X-Api-Key", "acct_7Q2", "X-User", "u1", "X-Forwarded-For", "203.0.113.9"));

        assertThat(attributes).containsEntry(Attributes.ROUTE, "/v1/labels").containsEntry(Subrequest.METHOD, "POST")
                .containsEntry(Attributes.PLAN, "growth").containsEntry(Attributes.API_KEY, "acct_7Q2")
                .containsEntry(Attributes.USER, "u1").containsEntry(Attributes.IP, "203.0.113.9");
    }

    @Test
    void theForwardedUriIsTheFallbackRoute() {
        assertThat(attributes(headers("X-Forwarded-Uri", "/v1/exports?x=1"))).containsEntry(Attributes.ROUTE, "/v1/exports");
    }

    @Test
    void aDomainReadsItsOwnHeaderNames() {
        CheckRequest request = read("auth", headers("X-Path", "/login", "X-Tier", "free", "X-Plan", "growth", "X-Key", "k"), settings(1, null));

        assertThat(request.attributes()).containsEntry(Attributes.ROUTE, "/login").containsEntry(Attributes.PLAN, "free")
                .containsEntry(Attributes.API_KEY, "k");
    }

    @Test
    void aMissingIdentityIsOneSharedKeyNotNoKey() {
        Map<String, String> attributes = attributes(headers("X-Plan", "free"));

        assertThat(attributes.get(Attributes.API_KEY)).isEqualTo(DescriptorBook.storable("")).startsWith("sha256:");
        assertThat(attributes(headers("X-Plan", "free", "X-Api-Key", "")).get(Attributes.API_KEY)).isEqualTo(attributes.get(Attributes.API_KEY));
    }

    @Test
    void aValueTheStoreCannotKeyIsKeyedByItsDigest() {
        String longKey = "k".repeat(300);
        Map<String, String> attributes = attributes(headers("X-Api-Key", longKey, "X-User", "a\tb", "X-Plan", "p".repeat(300)));

        assertThat(attributes.get(Attributes.API_KEY)).isEqualTo(DescriptorBook.storable(longKey)).startsWith("sha256:");
        assertThat(attributes.get(Attributes.USER)).startsWith("sha256:");
        assertThat(attributes.get(Attributes.PLAN)).startsWith("sha256:");
    }

    @Test
    void aLongOrOddRouteIsBoundedWithoutLosingItsPrefix() {
        String route = attributes(headers("X-Original-URI", "/v1" + "/.".repeat(300) + "/labels/" + "x".repeat(400) + "\u0001")).get(Attributes.ROUTE);

        assertThat(route).hasSizeLessThanOrEqualTo(Attributes.MAX_VALUE).startsWith("/v1/labels/xxx");
        assertThat(attributes(headers("X-Original-URI", "/v1/la\tbels")).get(Attributes.ROUTE)).isEqualTo("/v1/la%09bels");
    }

    @Test
    void theClientAddressIsTheEntryTrustedProxiesFromTheRight() {
        HttpHeaders headers = headers("X-Forwarded-For", "198.51.100.1, 203.0.113.9", "X-Forwarded-For", "192.0.2.4");

        assertThat(Subrequest.clientAddress(headers, "10.0.0.7", settings(1, null))).isEqualTo("192.0.2.4");
        assertThat(Subrequest.clientAddress(headers, "10.0.0.7", settings(2, null))).isEqualTo("203.0.113.9");
        assertThat(Subrequest.clientAddress(headers, "10.0.0.7", settings(4, null))).isEqualTo("10.0.0.7");
        assertThat(Subrequest.clientAddress(headers, "10.0.0.7", settings(0, null))).isEqualTo("10.0.0.7");
        assertThat(Subrequest.clientAddress(headers(), "10.0.0.7", settings(1, null))).isEqualTo("10.0.0.7");
    }

    @Test
    void theRealIpHeaderIsReadOnlyWhenConfigured() {
        HttpHeaders headers = headers("X-Real-IP", "198.51.100.1", "X-Forwarded-For", "203.0.113.9");

        assertThat(Subrequest.clientAddress(headers, "10.0.0.7", settings(1, null))).isEqualTo("203.0.113.9");
        assertThat(Subrequest.clientAddress(headers, "10.0.0.7", settings(1, "X-Real-IP"))).isEqualTo("198.51.100.1");
    }

    @Test
    void theCostHeaderIsAWholeNumberOrTheCheckCannotBeMade() {
        assertThat(read("public-api", headers("X-Cost", "3"), settings(1, null)).cost()).isEqualByComparingTo("3");
        for (String bad : List.of("0", "-1", "1.5", "1e3", "99999999999", "")) {
            Subrequest subrequest = Subrequest.read("public-api", headers("X-Cost", bad), "10.0.0.7", settings(1, null));
            if (bad.isEmpty()) {
                assertThat(subrequest.problems()).isEmpty();
            } else {
                assertThat(subrequest.problems()).as(bad).extracting(p -> p.path()).containsExactly("cost");
            }
        }
    }

    @Test
    void noDomainIsAProblemOfTheConfiguration() {
        Subrequest subrequest = Subrequest.read(null, headers(), "10.0.0.7", settings(1, null));

        assertThat(subrequest.request()).isEmpty();
        assertThat(subrequest.problems()).extracting(p -> p.path()).containsExactly("domain");
    }
}
