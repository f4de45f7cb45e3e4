package dev.tollgate.limiter.algorithm;

import java.util.List;

/**
 * What one script call answered, in the shape all three scripts share:
 * {@code {grant, retry_ms, remaining_1, reset_ms_1, ...}}.
 *
 * @param granted requests granted: 0 on deny, 1 for a plain check, more when a lease was granted
 */
public record GroupReply(long granted, long retryMs, long[] remaining, long[] resetMs) {

    public static GroupReply parse(List<Long> reply, int keys) {
        if (reply.size() != 2 + 2 * keys) {
            throw new IllegalStateException("script replied " + reply.size() + " values for " + keys + " keys");
        }
        long[] remaining = new long[keys];
        long[] reset = new long[keys];
        for (int i = 0; i < keys; i++) {
            remaining[i] = Math.max(0, reply.get(2 + 2 * i));
            reset[i] = Math.max(0, reply.get(3 + 2 * i));
        }
        return new GroupReply(reply.get(0), reply.get(1), remaining, reset);
    }

    public boolean allowed() {
        return granted > 0;
    }
}
