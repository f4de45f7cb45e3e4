package dev.tollgate.store.script;

import dev.tollgate.store.IntegerReply;

import java.util.List;

/**
 * What one spend call answered ({@code spend.lua}):
 * {@code {grant, retry_ms, hold_ms, remaining_1, reset_ms_1, ...}}.
 *
 * @param granted requests granted: 0 on deny, 1 for a plain check, more when a lease was granted
 * @param retryMs on deny, when the denying limits hold the request's cost again (what the client is told)
 * @param holdMs  how long the pod should deny, from its deny cache, the limits that cannot pay for its next
 *                request: on a deny at least {@code retryMs}, longer when other callers were left facing the
 *                same empty bucket just before (they are due the next tokens; see {@code spend.lua},
 *                "the deny queue"); after a grant of a bucket's last token, the same for the next request;
 *                0 otherwise
 */
public record GroupReply(long granted, long retryMs, long holdMs, long[] remaining, long[] resetMs, long stamp) {

    private static final int HEADER = 3;

    /** @param stamp a sliding log's trailing value: the microsecond clock that named its members (0 otherwise) */
    public GroupReply(long granted, long retryMs, long holdMs, long[] remaining, long[] resetMs) {
        this(granted, retryMs, holdMs, remaining, resetMs, 0);
    }

    public static GroupReply parse(List<Long> reply, int keys) {
        int size = HEADER + 2 * keys;
        if (reply.size() != size && reply.size() != size + 1) {
            throw new IllegalStateException("script replied " + reply.size() + " values for " + keys + " keys");
        }
        long[] remaining = new long[keys];
        long[] reset = new long[keys];
        for (int i = 0; i < keys; i++) {
            remaining[i] = Math.max(0, IntegerReply.at(reply, HEADER + 2 * i));
            reset[i] = Math.max(0, IntegerReply.at(reply, HEADER + 1 + 2 * i));
        }
        long stamp = reply.size() > size ? IntegerReply.at(reply, size) : 0;
        long retryMs = IntegerReply.at(reply, 1);
        return new GroupReply(IntegerReply.at(reply, 0), retryMs, Math.max(retryMs, IntegerReply.at(reply, 2)), remaining, reset, stamp);
    }

    public boolean allowed() {
        return granted > 0;
    }
}
