package dev.tollgate.common.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
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
 * The JSON both HTTP services speak, in one place so that they cannot drift apart: how it is written
 * ({@link #configure}) and how strictly a request body is read ({@link #strict}).
 */
public final class WireFormat {

    private WireFormat() {
    }

    /** The wire format of the design: snake_case fields, lower-case enums ({@code "verdict": "deny"}), no nulls. */
    public static JsonMapper.Builder configure(JsonMapper.Builder builder) {
        return builder
                .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
                .enable(EnumFeature.WRITE_ENUMS_TO_LOWERCASE)
                .changeDefaultPropertyInclusion(inclusion -> inclusion.withValueInclusion(JsonInclude.Include.NON_NULL));
    }

    /**
     * Strict reading: an unknown field ({@code "costs": 10}), a string where a number belongs, a
     * number where a string belongs, a fraction for an integer, a null for a primitive, a key given
     * twice or a second value after the first is refused, never guessed at. A client that sent
     * {@code "costs"} would otherwise be read with a default nobody chose, and nobody would notice.
     */
    public static JsonMapper.Builder strict(JsonMapper.Builder builder) {
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
