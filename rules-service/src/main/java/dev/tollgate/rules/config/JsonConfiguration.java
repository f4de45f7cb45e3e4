package dev.tollgate.rules.config;

import dev.tollgate.common.wire.WireFormat;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import tools.jackson.databind.cfg.EnumFeature;

import java.util.Map;

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
    /**
     * A rules-as-code file is a whole domain: a mapping may have 1,000 nodes (DescriptorValidator), with its rules and
     * overrides beside it, past 64 KiB; 1 MiB is thousands of rules, and still one buffer a request may hold.
     */
    static final long MAX_CONFIG_FILE_BYTES = 1024 * 1024;

    /** Before Spring Security: a body too large (or of no concrete type) is refused before a token is even looked at. */
    @Bean
    FilterRegistrationBean<RequestBodyFilter> bodyLimit() {
        FilterRegistrationBean<RequestBodyFilter> registration = new FilterRegistrationBean<>(new RequestBodyFilter(MAX_BODY_BYTES,
                Map.of("/v1/config:apply", MAX_CONFIG_FILE_BYTES)));
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
        return registration;
    }

    @Bean
    JsonMapperBuilderCustomizer tollgateWireFormat() {
        // the whole mapper reads strictly here, and a number is not an enum ({"algorithm": 1} would be sliding_log)
        return builder -> WireFormat.strict(WireFormat.configure(builder)).enable(EnumFeature.FAIL_ON_NUMBERS_FOR_ENUMS);
    }
}
