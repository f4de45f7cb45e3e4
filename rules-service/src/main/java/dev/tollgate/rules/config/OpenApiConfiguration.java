package dev.tollgate.rules.config;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleFields;
import io.swagger.v3.core.converter.AnnotatedType;
import io.swagger.v3.core.converter.ModelConverter;
import io.swagger.v3.core.converter.ModelConverterContext;
import io.swagger.v3.core.jackson.ModelResolver;
import io.swagger.v3.core.util.Json;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The document at {@code /v3/api-docs}: every operation takes a bearer token. springdoc describes
 * schemas with its own (Jackson 2) mapper, which knows nothing of the service's wire format, so the
 * two beans below teach it snake_case names and lower-case enum values, and that a rule is written flat.
 */
@Configuration(proxyBeanMethods = false)
class OpenApiConfiguration {

    @Bean
    OpenAPI rulesServiceApi() {
        return new OpenAPI()
                .info(new Info()
                        .title("Tollgate rules-service")
                        .version("v1")
                        .description("Rules, per-account overrides, region budgets, usage and the watch feed. "
                                + "Writes need scope ratelimit:admin, reads ratelimit:read, the watch feed ratelimit:watch. "
                                + "Errors are RFC 9457 problem details with a `code` member."))
                .components(new Components().addSecuritySchemes("bearer",
                        new SecurityScheme().type(SecurityScheme.Type.HTTP).scheme("bearer").bearerFormat("JWT")))
                .addSecurityItem(new SecurityRequirement().addList("bearer"));
    }

    @Bean
    ModelResolver snakeCaseSchemas() {
        return new ModelResolver(Json.mapper().copy().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)) {

            @Override
            @SuppressWarnings("rawtypes")
            public Schema resolve(AnnotatedType type, ModelConverterContext context, Iterator<ModelConverter> next) {
                return super.resolve(asWritten(type, _mapper), context, next);
            }
        };
    }

    /**
     * A {@link Rule} is written as its {@link RuleFields} (its {@code @JsonValue}): described as those
     * fields, under the name the document has always given it.
     */
    private static AnnotatedType asWritten(AnnotatedType type, ObjectMapper mapper) {
        if (type.getType() == null || mapper.constructType(type.getType()).getRawClass() != Rule.class) {
            return type;
        }
        return new AnnotatedType(RuleFields.class)
                .name("Rule")
                .resolveAsRef(type.isResolveAsRef())
                .schemaProperty(type.isSchemaProperty())
                .skipSchemaName(type.isSkipSchemaName())
                .parent(type.getParent())
                .components(type.getComponents())
                .ctxAnnotations(type.getCtxAnnotations())
                .jsonViewAnnotation(type.getJsonViewAnnotation())
                .propertyName(type.getPropertyName());
    }

    @Bean
    OpenApiCustomizer lowerCaseEnums() {
        return openApi -> {
            if (openApi.getComponents() == null || openApi.getComponents().getSchemas() == null) {
                return;
            }
            openApi.getComponents().getSchemas().values().forEach(OpenApiConfiguration::lowerCaseEnums);
        };
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static void lowerCaseEnums(Schema schema) {
        if (schema.getEnum() != null) {
            List<Object> values = schema.getEnum();
            schema.setEnum(values.stream().map(v -> v instanceof String s ? s.toLowerCase(Locale.ROOT) : v).toList());
        }
        if (schema.getItems() != null) {
            lowerCaseEnums(schema.getItems());
        }
        Map<String, Schema> properties = schema.getProperties();
        if (properties != null) {
            properties.values().forEach(OpenApiConfiguration::lowerCaseEnums);
        }
    }
}
