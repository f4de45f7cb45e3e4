package dev.tollgate.store.read;

/**
 * @param redisKey where the log lives
 * @param count    entries inside the window; 0 for a log that does not exist
 */
public record LogCount(String redisKey, long count) {
}
