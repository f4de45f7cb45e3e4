package dev.tollgate.store.read;

/**
 * @param redisKey where the window's counter lives
 * @param window   the window's name, e.g. {@code 2026-09-30} (a day) or {@code 2026-09-30T12:00:00Z}
 * @param count    what the window counted; 0 for a counter that does not exist
 */
public record WindowCount(String redisKey, String window, long count) {
}
