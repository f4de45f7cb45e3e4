package dev.tollgate.common.check;

import dev.tollgate.common.validation.Text;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The structural checks every request passes before it costs a store call. A key is user data (a
 * login name may hold {@code {} or {@code _}), so only its size and control characters are refused;
 * the engine encodes the rest. The cost's upper bound depends on the rule and is checked there.
 */
public final class CheckRequestValidator {

    public static final int MAX_KEY_BYTES = 256;

    /** One message for every bad cost: it never quotes the value, whose text can be a billion digits long. */
    static final String COST_MESSAGE = "must be an integer between 0 (look without spending) and the rule's max_cost";
    /** {@code 2.000000000000} is still 2; more fraction digits than this are no cost anyone sends. */
    static final int MAX_COST_SCALE = 12;
    /** At most {@link #INT_DIGITS} integer digits plus {@link #MAX_COST_SCALE} fraction digits. */
    static final int MAX_COST_PRECISION = 22;
    /** {@code Integer.MAX_VALUE} has 10 digits. */
    private static final int INT_DIGITS = 10;
    private static final BigDecimal MAX_COST = BigDecimal.valueOf(Integer.MAX_VALUE);

    private final int maxEntries;

    public CheckRequestValidator(int maxEntries) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be at least 1, was " + maxEntries);
        }
        this.maxEntries = maxEntries;
    }

    /** What is wrong with the request, if anything: empty when the engine can check it. */
    public List<CheckProblem> problems(CheckRequest request) {
        if (request == null) {
            return List.of(CheckProblem.ofRequest("", "a request body is required"));
        }
        List<CheckProblem> problems = new ArrayList<>();
        if (isBlank(request.domain())) {
            problems.add(CheckProblem.ofRequest("domain", "is required"));
        } else if (Text.hasControlCharacter(request.domain())) {
            problems.add(CheckProblem.ofRequest("domain", "must not contain control characters"));
        }
        if (request.byAttributes()) {
            attributeProblems(request, problems);
            return problems;
        }
        if (request.cost() != null) {
            problems.add(CheckProblem.ofRequest("cost", "belongs to each entry in a check by entries; a request-wide cost is for a check by attributes"));
        }
        List<CheckEntry> entries = request.entries();
        if (entries == null || entries.isEmpty()) {
            problems.add(CheckProblem.ofRequest("entries", "must hold at least one entry"));
        } else if (entries.size() > maxEntries) {
            problems.add(CheckProblem.ofRequest("entries", "holds " + entries.size() + " entries; at most " + maxEntries + " are allowed"));
        } else {
            for (int i = 0; i < entries.size(); i++) {
                entryProblems(i, entries.get(i), problems);
            }
        }
        return problems;
    }

    /**
     * A check by attributes: the attributes name what the request is; values are checked as the keys and match
     * values they become (an identity's value is a key: the engine keys a rule by it).
     */
    private static void attributeProblems(CheckRequest request, List<CheckProblem> problems) {
        if (request.entries() != null) {
            problems.add(CheckProblem.ofRequest("entries", "cannot be given with attributes: a check names its rules, or says what the request is"));
        }
        if (request.cost() != null && !isCost(request.cost())) {
            problems.add(CheckProblem.ofRequest("cost", COST_MESSAGE));
        }
        Map<String, String> attributes = request.attributes();
        if (attributes.isEmpty()) {
            problems.add(CheckProblem.ofRequest("attributes", "must name at least one attribute (plan, route, api_key, ip, user)"));
        } else if (attributes.size() > Attributes.MAX_ATTRIBUTES) {
            problems.add(CheckProblem.ofRequest("attributes", "holds " + attributes.size() + " attributes; at most " + Attributes.MAX_ATTRIBUTES + " are allowed"));
            return;
        }
        for (Map.Entry<String, String> attribute : attributes.entrySet()) {
            String name = attribute.getKey();
            if (name == null || name.isEmpty() || name.length() > Attributes.MAX_NAME || Text.hasControlCharacter(name)) {
                problems.add(CheckProblem.ofRequest("attributes", "names must be 1-" + Attributes.MAX_NAME + " characters, without control characters"));
                continue;
            }
            String value = attribute.getValue();
            if (value == null) {
                problems.add(CheckProblem.ofRequest("attributes." + name, "must be a string"));
            } else if (name.equals(Attributes.PLAN) || name.equals(Attributes.ROUTE)) {
                if (value.length() > Attributes.MAX_VALUE || Text.hasControlCharacter(value)) {
                    problems.add(CheckProblem.ofRequest("attributes." + name, "must be at most " + Attributes.MAX_VALUE
                            + " characters, without control characters"));
                }
            } else {
                keyProblem(value).ifPresent(message -> problems.add(CheckProblem.ofRequest("attributes." + name, message)));
            }
        }
    }

    private static void entryProblems(int index, CheckEntry entry, List<CheckProblem> problems) {
        if (entry == null) {
            problems.add(CheckProblem.ofEntry(index, "", "must be an object"));
            return;
        }
        if (isBlank(entry.rule())) {
            problems.add(CheckProblem.ofEntry(index, "rule", "is required"));
        } else if (Text.hasControlCharacter(entry.rule())) {
            problems.add(CheckProblem.ofEntry(index, "rule", "must not contain control characters"));
        }
        keyProblem(entry.key()).ifPresent(message -> problems.add(CheckProblem.ofEntry(index, "key", message)));
        if (entry.cost() != null && !isCost(entry.cost())) {
            problems.add(CheckProblem.ofEntry(index, "cost", COST_MESSAGE));
        }
    }

    /**
     * Why a key cannot be a limit key as it is, if it cannot: empty, longer than {@link #MAX_KEY_BYTES} in UTF-8,
     * holding a control character or not valid UTF-8. An adapter that keys callers' values it does not choose
     * (Envoy's descriptors) asks this to key such a value by a digest instead of refusing the call.
     */
    public static Optional<String> keyProblem(String key) {
        if (key == null || key.isEmpty()) {
            return Optional.of("is required and must not be empty");
        }
        if (key.getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
            return Optional.of("is longer than " + MAX_KEY_BYTES + " bytes in UTF-8");
        }
        if (Text.hasControlCharacter(key)) {
            return Optional.of("must not contain control characters");
        }
        if (Text.hasLoneSurrogate(key)) {
            return Optional.of("must be valid UTF-8");
        }
        return Optional.empty();
    }

    /**
     * Decides on the number's shape before any arithmetic or formatting touches it: Jackson hands over
     * {@code 1e-999999999} as a BigDecimal of scale 999,999,999, whose {@code toPlainString()} is a
     * billion characters, and {@code stripTrailingZeros()} of a long literal costs its length again.
     * The value itself is never echoed, so nothing here grows with what the caller sent.
     */
    static boolean isCost(BigDecimal cost) {
        if (cost.signum() < 0 || Math.abs((long) cost.scale()) > MAX_COST_SCALE || cost.precision() > MAX_COST_PRECISION) {
            return false;
        }
        // digits before the point; a negative scale (2E+3) adds zeros. Both bounded above, so this is exact.
        long integerDigits = (long) cost.precision() - cost.scale();
        if (integerDigits > INT_DIGITS) {
            return false;
        }
        BigDecimal integral = cost.stripTrailingZeros();
        return integral.scale() <= 0 && integral.compareTo(MAX_COST) <= 0;
    }

    private static boolean isBlank(String value) {
        return value == null || value.isBlank();
    }
}
