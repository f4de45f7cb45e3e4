package dev.tollgate.limiter.rules;

import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.descriptor.DescriptorNode;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class DescriptorBookTest {

    private final DescriptorBook book = new DescriptorBook();

    {
        DescriptorNode labels = new DescriptorNode("route", "/v1/labels", "labels-route", "account", List.of());
        DescriptorNode anyRoute = new DescriptorNode("route", null, "any-route", null, List.of());
        DescriptorNode account = new DescriptorNode("account", null, "account-plan", null, List.of(labels, anyRoute));
        DescriptorNode vip = new DescriptorNode("account", "vip", "vip-plan", null, List.of());
        DescriptorNode header = new DescriptorNode("generic_key", "checkout", null, null,
                List.of(new DescriptorNode("remote_address", null, "checkout-ip", null, List.of())));
        book.apply(List.of(new DescriptorDomain("api", List.of(account, vip, header), 1)));
    }

    @Test
    void aKeyWithoutAValueMatchesAnyValueAndKeysByIt() {
        assertThat(book.resolve("api", List.of("account"), List.of("acme")))
                .contains(new DescriptorBook.Limited("account-plan", "acme"));
    }

    @Test
    void anExactValueWinsOverAnyValue() {
        assertThat(book.resolve("api", List.of("account"), List.of("vip")))
                .contains(new DescriptorBook.Limited("vip-plan", "vip"));
    }

    @Test
    void nestedEntriesWalkTheTreeAndTheLimitKeyNamesTheAccountsEntry() {
        assertThat(book.resolve("api", List.of("account", "route"), List.of("acme", "/v1/labels")))
                .contains(new DescriptorBook.Limited("labels-route", "acme"));
        assertThat(book.resolve("api", List.of("account", "route"), List.of("acme", "/v1/other")))
                .contains(new DescriptorBook.Limited("any-route", "acme|/v1/other"));
    }

    @Test
    void withoutALimitKeyEveryValueMakesTheKeyEscapedSoNoTwoDescriptorsCollide() {
        DescriptorBook.Limited piped = (DescriptorBook.Limited) book.resolve("api", List.of("account", "route"), List.of("a|b", "c")).orElseThrow();
        DescriptorBook.Limited split = (DescriptorBook.Limited) book.resolve("api", List.of("account", "route"), List.of("a", "b|c")).orElseThrow();
        assertThat(piped.key()).isEqualTo("a\\|b|c");
        assertThat(split.key()).isEqualTo("a|b\\|c");
        assertThat(book.resolve("api", List.of("generic_key", "remote_address"), List.of("checkout", "10.0.0.1")))
                .contains(new DescriptorBook.Limited("checkout-ip", "checkout|10.0.0.1"));
    }

    @Test
    void aDescriptorThatLandsNowhereOrOnANodeWithoutARuleHasNoLimit() {
        assertThat(book.resolve("api", List.of("generic_key"), List.of("checkout"))).isEmpty();
        assertThat(book.resolve("api", List.of("generic_key"), List.of("other"))).isEmpty();
        assertThat(book.resolve("api", List.of("account", "route", "method"), List.of("acme", "/v1/labels", "GET"))).isEmpty();
        assertThat(book.resolve("api", List.of("plan"), List.of("free"))).isEmpty();
        assertThat(book.resolve("other-domain", List.of("account"), List.of("acme"))).isEmpty();
    }

    @Test
    void applyingReplacesEverything() {
        book.apply(List.of());
        assertThat(book.resolve("api", List.of("account"), List.of("acme"))).isEmpty();
    }

    @Test
    void aKeyTheStoreCannotTakeAsItIsBecomesADigestOfItsCharacters() {
        assertThat(DescriptorBook.storable("acme")).isEqualTo("acme");
        for (String bad : List.of("", "a".repeat(257), "a\tb", "\ud800")) {
            assertThat(DescriptorBook.storable(bad)).as(bad).matches("sha256:[0-9a-f]{64}").isEqualTo(DescriptorBook.storable(bad));
        }
        // two values UTF-8 would encode alike (each lone surrogate as '?') keep keys of their own
        assertThat(DescriptorBook.storable("\ud800")).isNotEqualTo(DescriptorBook.storable("\udc00"));
        assertThat(DescriptorBook.storable("a".repeat(257))).isNotEqualTo(DescriptorBook.storable("a".repeat(258)));
    }

    @Test
    void anExactValueFirstThenTheFirstWildcardItFitsThenAnyValue() {
        DescriptorBook envoy = new DescriptorBook();
        envoy.apply(List.of(new DescriptorDomain("files", List.of(
                new DescriptorNode("path", "/files/big", "big", null, List.of()),
                new DescriptorNode("path", "/files/*/raw*", "raw", null, List.of()),
                new DescriptorNode("path", "/files/*", "files", null, List.of()),
                new DescriptorNode("path", null, "any", null, List.of())), 1)));

        assertThat(envoy.resolve("files", List.of("path"), List.of("/files/big"))).contains(new DescriptorBook.Limited("big", "/files/big"));
        assertThat(envoy.resolve("files", List.of("path"), List.of("/files/a/raw.txt"))).contains(new DescriptorBook.Limited("raw", "/files/a/raw.txt"));
        assertThat(envoy.resolve("files", List.of("path"), List.of("/files/a"))).contains(new DescriptorBook.Limited("files", "/files/a"));
        assertThat(envoy.resolve("files", List.of("path"), List.of("/files/"))).contains(new DescriptorBook.Limited("files", "/files/"));
        assertThat(envoy.resolve("files", List.of("path"), List.of("/other"))).contains(new DescriptorBook.Limited("any", "/other"));
    }

    @Test
    void aShareThresholdWildcardCountsEveryValueItFitsOnOneKey() {
        DescriptorBook envoy = new DescriptorBook();
        envoy.apply(List.of(new DescriptorDomain("files", List.of(
                new DescriptorNode("path", "/files/*", "files", null, false, null, null, true, false, List.of())), 1)));

        assertThat(envoy.resolve("files", List.of("path"), List.of("/files/a"))).contains(new DescriptorBook.Limited("files", "/files/*"));
        assertThat(envoy.resolve("files", List.of("path"), List.of("/files/b"))).contains(new DescriptorBook.Limited("files", "/files/*"));
    }

    @Test
    void anUnlimitedNodeSaysSoWithWhatItReplaces() {
        DescriptorBook envoy = new DescriptorBook();
        envoy.apply(List.of(new DescriptorDomain("api", List.of(
                new DescriptorNode("plan", "premium", null, null, true, "premium", List.of("default"), false, false, List.of()),
                new DescriptorNode("plan", null, "default-plan", null, false, "default", null, false, true, List.of())), 1)));

        assertThat(envoy.resolve("api", List.of("plan"), List.of("premium")))
                .contains(new DescriptorBook.Unlimited(java.util.Optional.of("premium"), List.of("default")));
        DescriptorBook.Limited free = (DescriptorBook.Limited) envoy.resolve("api", List.of("plan"), List.of("free")).orElseThrow();
        assertThat(free.name()).contains("default");
        assertThat(free.detail()).contains("api.plan_free");
        assertThat(envoy.knows("api")).isTrue();
        assertThat(envoy.knows("other")).isFalse();
    }

    @Test
    void wildcardPartsMatchInOrderAndNeverOverlap() {
        List<String> parts = Wildcards.parts("a*b*c");
        assertThat(parts).containsExactly("a", "b", "c");
        assertThat(Wildcards.fits(parts, "abc")).isTrue();
        assertThat(Wildcards.fits(parts, "axxbyyc")).isTrue();
        assertThat(Wildcards.fits(parts, "ac")).isFalse();
        assertThat(Wildcards.fits(parts, "acb")).isFalse();
        // the middle part may not use the characters the last part needs
        assertThat(Wildcards.fits(Wildcards.parts("a*bc*c"), "abc")).isFalse();
        assertThat(Wildcards.fits(Wildcards.parts("*"), "")).isTrue();
        assertThat(Wildcards.fits(List.of("plain"), "plain")).isFalse();
    }
}
