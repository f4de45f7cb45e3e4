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
                .contains(new DescriptorBook.Resolved("account-plan", "acme"));
    }

    @Test
    void anExactValueWinsOverAnyValue() {
        assertThat(book.resolve("api", List.of("account"), List.of("vip")))
                .contains(new DescriptorBook.Resolved("vip-plan", "vip"));
    }

    @Test
    void nestedEntriesWalkTheTreeAndTheLimitKeyNamesTheAccountsEntry() {
        assertThat(book.resolve("api", List.of("account", "route"), List.of("acme", "/v1/labels")))
                .contains(new DescriptorBook.Resolved("labels-route", "acme"));
        assertThat(book.resolve("api", List.of("account", "route"), List.of("acme", "/v1/other")))
                .contains(new DescriptorBook.Resolved("any-route", "acme|/v1/other"));
    }

    @Test
    void withoutALimitKeyEveryValueMakesTheKeyEscapedSoNoTwoDescriptorsCollide() {
        DescriptorBook.Resolved piped = book.resolve("api", List.of("account", "route"), List.of("a|b", "c")).orElseThrow();
        DescriptorBook.Resolved split = book.resolve("api", List.of("account", "route"), List.of("a", "b|c")).orElseThrow();
        assertThat(piped.key()).isEqualTo("a\\|b|c");
        assertThat(split.key()).isEqualTo("a|b\\|c");
        assertThat(book.resolve("api", List.of("generic_key", "remote_address"), List.of("checkout", "10.0.0.1")))
                .contains(new DescriptorBook.Resolved("checkout-ip", "checkout|10.0.0.1"));
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
}
