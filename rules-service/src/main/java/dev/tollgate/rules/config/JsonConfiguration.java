package dev.tollgate.rules.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
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
 * The wire format shared with check-service and the rules file: snake_case fields, lower-case enums,
 * no nulls. Stricter on input than a pod: a misspelt field ({@code max_cots}) or a fractional rate is
 * refused with 400 instead of being dropped or truncated, because a rule that silently lost a field
 * is enforced with a default nobody chose. Likewise a key given twice in one object, a string for a
 * number or a number for a string or an enum ({@code "algorithm": 1} would be read as sliding_log).
 */
@Configuration(proxyBeanMethods = false)
class JsonConfiguration {

    /** A rule or an override is well under 1 KiB; 64 KiB is the same cap check-service puts on a check. */
    static final long MAX_BODY_BYTES = 64 * 1024;

    /** Before Spring Security: a body too large (or of no concrete type) is refused before a token is even looked at. */
    @Bean
    FilterRegistrationBean<RequestBodyFilter> bodyLimit(JsonMapper json) {
        FilterRegistrationBean<RequestBodyFilter> registration = new FilterRegistrationBean<>(new RequestBodyFilter(MAX_BODY_BYTES, json));
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
        return registration;
    }

    @Bean
    JsonMapperBuilderCustomizer tollgateWireFormat() {
        return builder -> builder
                .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
                .enable(EnumFeature.WRITE_ENUMS_TO_LOWERCASE)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .enable(EnumFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                // ALLOW_COERCION_OF_SCALARS covers text to numbers and booleans; these cover the way back
                .withCoercionConfig(LogicalType.Textual, text -> text
                        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
                .changeDefaultPropertyInclusion(inclusion -> inclusion.withValueInclusion(JsonInclude.Include.NON_NULL));
    }
}
