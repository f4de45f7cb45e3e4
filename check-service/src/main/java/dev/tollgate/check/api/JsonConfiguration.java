package dev.tollgate.check.api;

import dev.tollgate.common.wire.WireFormat;
import org.springframework.boot.http.codec.CodecCustomizer;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import tools.jackson.databind.json.JsonMapper;

/**
 * The wire format of the design: snake_case fields, lower-case enums ({@code "verdict": "deny"}), no nulls.
 *
 * <p>Request bodies are read strictly: an unknown field ({@code "costs": 10}), a string where a
 * number belongs ({@code "cost": "1e-999999999"}), a number where a string belongs, a fraction for an
 * integer, or a key given twice is a 400 naming the field, never a guess. A gateway that sent
 * {@code "costs"} would otherwise spend 1 per request without anyone noticing. The strictness is on the
 * HTTP decoder only: the snapshot a pod reads from rules-service keeps the lenient mapper, so a newer
 * rules-service that adds a field does not make every pod refuse its rules.
 */
@Configuration(proxyBeanMethods = false)
class JsonConfiguration {

    @Bean
    JsonMapperBuilderCustomizer tollgateWireFormat() {
        return WireFormat::configure;
    }

    @Bean
    CheckJson checkJson(JsonMapper json) {
        return new CheckJson(json);
    }

    /**
     * After Boot's own Jackson codec customizer (order 0), which it replaces: strict reading, and the check's
     * request and answer read and written with the streaming parser and generator (the same JSON both ways).
     */
    @Bean
    @Order(Ordered.LOWEST_PRECEDENCE)
    CodecCustomizer strictRequestBodies(CheckJson check) {
        return configurer -> {
            configurer.defaultCodecs().jacksonJsonDecoder(check.decoder());
            configurer.defaultCodecs().jacksonJsonEncoder(check.encoder());
        };
    }
}
