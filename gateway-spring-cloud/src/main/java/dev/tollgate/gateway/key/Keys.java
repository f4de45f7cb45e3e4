package dev.tollgate.gateway.key;

import dev.tollgate.common.check.CheckRequestValidator;
import dev.tollgate.common.validation.Text;
import reactor.core.publisher.Mono;

import java.nio.charset.StandardCharsets;

/** A key as Tollgate accepts it, or nothing: the caller's own header text must not turn into a 500. */
final class Keys {

    private Keys() {
    }

    static Mono<String> acceptable(String key) {
        if (key == null || key.isEmpty() || key.getBytes(StandardCharsets.UTF_8).length > CheckRequestValidator.MAX_KEY_BYTES
                || Text.hasControlCharacter(key) || Text.hasLoneSurrogate(key)) {
            return Mono.empty();
        }
        return Mono.just(key);
    }
}
