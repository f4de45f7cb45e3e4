package dev.tollgate.common.check;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The structural checks every request passes before it costs a store call. A key is user data (a
 * login name may hold {@code {} or {@code _}), so only its size and control characters are refused;
 * the engine encodes the rest. The cost's upper bound depends on the rule and is checked there.
 */
public final class CheckRequestValidator {

    public static final int MAX_KEY_BYTES = 256;

    private final int maxEntries;

    public CheckRequestValidator(int maxEntries) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be at least 1, was " + maxEntries);
        }
        this.maxEntries = maxEntries;
    }

    public void validate(CheckRequest request) {
        List<InvalidCheckRequestException.Problem> problems = new ArrayList<>();
        if (request == null) {
            throw new InvalidCheckRequestException(List.of(problem("", "a request body is required")));
        }
        if (isBlank(request.domain())) {
            problems.add(problem("domain", "is required"));
        } else if (hasControlCharacter(request.domain())) {
            problems.add(problem("domain", "must not contain control characters"));
        }
        List<CheckEntry> entries = request.entries();
        if (entries == null || entries.isEmpty()) {
            problems.add(problem("entries", "must hold at least one entry"));
        } else if (entries.size() > maxEntries) {
            problems.add(problem("entries", "holds " + entries.size() + " entries; at most " + maxEntries + " are allowed"));
        } else {
            for (int i = 0; i < entries.size(); i++) {
                validateEntry("entries[" + i + "]", entries.get(i), problems);
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidCheckRequestException(problems);
        }
    }

    private static void validateEntry(String path, CheckEntry entry, List<InvalidCheckRequestException.Problem> problems) {
        if (entry == null) {
            problems.add(problem(path, "must be an object"));
            return;
        }
        if (isBlank(entry.rule())) {
            problems.add(problem(path + ".rule", "is required"));
        } else if (hasControlCharacter(entry.rule())) {
            problems.add(problem(path + ".rule", "must not contain control characters"));
        }
        String key = entry.key();
        if (key == null || key.isEmpty()) {
            problems.add(problem(path + ".key", "is required and must not be empty"));
        } else if (key.getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
            problems.add(problem(path + ".key", "is longer than " + MAX_KEY_BYTES + " bytes in UTF-8"));
        } else if (hasControlCharacter(key)) {
            problems.add(problem(path + ".key", "must not contain control characters"));
        } else if (hasLoneSurrogate(key)) {
            problems.add(problem(path + ".key", "must be valid UTF-8"));
        }
        BigDecimal cost = entry.cost();
        if (cost != null) {
            if (!isInteger(cost)) {
                problems.add(problem(path + ".cost", "must be an integer, was " + cost.toPlainString()));
            } else if (cost.compareTo(BigDecimal.ONE) < 0) {
                problems.add(problem(path + ".cost", "must be at least 1, was " + cost.toPlainString()));
            } else if (cost.compareTo(BigDecimal.valueOf(Integer.MAX_VALUE)) > 0) {
                problems.add(problem(path + ".cost", "is too large"));
            }
        }
    }

    private static boolean isInteger(BigDecimal value) {
        return value.signum() == 0 || value.stripTrailingZeros().scale() <= 0;
    }

    private static boolean isBlank(String value) {
        return value == null || value.isBlank();
    }

    static boolean hasControlCharacter(String value) {
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasLoneSurrogate(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= value.length() || !Character.isLowSurrogate(value.charAt(i + 1))) {
                    return true;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    private static InvalidCheckRequestException.Problem problem(String field, String message) {
        return new InvalidCheckRequestException.Problem(field, message);
    }
}
