package dev.tollgate.check.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import org.springframework.boot.http.codec.CodecCustomizer;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.cfg.EnumFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.type.LogicalType;

/**
 * The wire format of the design: snake_case fields, lower-case enums ({@code "verdict": "deny"}), no nulls.
 *
 * <p>Request bodies are read strictly (L1): an unknown field ({@code "costs": 10}), a string where a
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
        return builder -> builder
                .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
                .enable(EnumFeature.WRITE_ENUMS_TO_LOWERCASE)
                .changeDefaultPropertyInclusion(inclusion -> inclusion.withValueInclusion(JsonInclude.Include.NON_NULL));
    }

    /** After Boot's own Jackson codec customizer (order 0), which it replaces for reading. */
    @Bean
    @Order(Ordered.LOWEST_PRECEDENCE)
    CodecCustomizer strictRequestBodies(JsonMapper json) {
        JsonMapper strict = strict(json.rebuild()).build();
        return configurer -> configurer.defaultCodecs().jacksonJsonDecoder(new JacksonJsonDecoder(strict));
    }

    static JsonMapper.Builder strict(JsonMapper.Builder builder) {
        return builder
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                // ALLOW_COERCION_OF_SCALARS covers text to numbers and booleans; these cover the way back
                .withCoercionConfig(LogicalType.Textual, text -> text
                        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail));
    }
}
