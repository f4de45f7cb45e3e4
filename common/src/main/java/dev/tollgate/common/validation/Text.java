package dev.tollgate.common.validation;

/**
 * The checks every piece of caller text passes before it is stored or becomes part of a Redis key:
 * no control characters (they end up in logs, history and headers) and no lone surrogates (UTF-8
 * cannot hold them, so the JDBC driver or the key encoder would silently write a {@code ?} instead).
 */
public final class Text {

    private Text() {
    }

    public static boolean hasControlCharacter(String value) {
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                return true;
            }
        }
        return false;
    }

    /** Free text written by a person may break lines; every other control character is still refused. */
    public static boolean hasControlCharacterOtherThanLineBreakOrTab(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isISOControl(c) && c != '\n' && c != '\r' && c != '\t') {
                return true;
            }
        }
        return false;
    }

    public static boolean hasLoneSurrogate(String value) {
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
}
