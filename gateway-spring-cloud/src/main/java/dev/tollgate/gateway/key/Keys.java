package dev.tollgate.gateway.key;

import dev.tollgate.common.check.Attributes;
import dev.tollgate.common.check.CheckRequestValidator;
import dev.tollgate.common.validation.Text;
import reactor.core.publisher.Mono;

import java.nio.charset.StandardCharsets;

/** A key or attribute as Tollgate accepts it, or nothing: the caller's own header text must not turn into a 500. */
final class Keys {

    private Keys() {
    }

    static Mono<String> acceptable(String key) {
        return isAcceptable(key) ? Mono.just(key) : Mono.empty();
    }

    static boolean isAcceptable(String key) {
        return key != null && !key.isEmpty() && key.getBytes(StandardCharsets.UTF_8).length <= CheckRequestValidator.MAX_KEY_BYTES
                && !Text.hasControlCharacter(key) && !Text.hasLoneSurrogate(key);
    }

    /** An attribute's value as check-service takes it: a plan or route as long as a rule's match, an identity as a key. */
    static boolean isAcceptable(String attribute, String value) {
        if (attribute.equals(Attributes.PLAN) || attribute.equals(Attributes.ROUTE)) {
            return value != null && !value.isEmpty() && value.length() <= Attributes.MAX_VALUE && !Text.hasControlCharacter(value)
                    && !Text.hasLoneSurrogate(value);
        }
        return isAcceptable(value);
    }
}
