package dev.tollgate.check.envoy;

import com.google.protobuf.Duration;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.EntryResult;
import dev.tollgate.common.check.Verdict;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.RateLimit;

import java.util.List;
import java.util.Map;

/** The engine's answer in Envoy's words: a status per descriptor, the overall code, the headers to add. */
final class EnvoyAnswers {

    private static final DescriptorStatus NO_LIMIT = DescriptorStatus.newBuilder().setCode(Code.OK).build();
    /** envoyproxy/ratelimit's answer for an {@code unlimited} descriptor: OK, with all of uint32 remaining. */
    private static final DescriptorStatus UNLIMITED = DescriptorStatus.newBuilder().setCode(Code.OK).setLimitRemaining(0xFFFF_FFFF).build();
    private static final DescriptorStatus OVER_LIMIT = DescriptorStatus.newBuilder().setCode(Code.OVER_LIMIT).build();
    /** Why a call was answered without its store: for the gateway's logs and the client, never a verdict of its own. */
    static final String DEGRADED = "x-tollgate-degraded";
    private static final long MAX_UINT32 = 0xFFFF_FFFFL;

    /** Envoy's units, largest first, with their length in seconds. */
    private static final RateLimit.Unit[] UNITS = {RateLimit.Unit.WEEK, RateLimit.Unit.DAY, RateLimit.Unit.HOUR, RateLimit.Unit.MINUTE, RateLimit.Unit.SECOND};
    private static final long[] UNIT_SECONDS = {604_800, 86_400, 3_600, 60, 1};

    private EnvoyAnswers() {
    }

    /** No descriptor resolved to a rule: nothing was checked, nothing limits the request. */
    static RateLimitResponse noLimits(DescriptorCheck check) {
        RateLimitResponse.Builder answer = RateLimitResponse.newBuilder().setOverallCode(Code.OK);
        for (int i = 0; i < check.entriesOf().length; i++) {
            answer.addStatuses(unlimitedOrNone(check, i));
        }
        return answer.build();
    }

    private static DescriptorStatus unlimitedOrNone(DescriptorCheck check, int descriptor) {
        return check.unlimited()[descriptor] ? UNLIMITED : NO_LIMIT;
    }

    static RateLimitResponse of(DescriptorCheck check, CheckResponse response) {
        RateLimitResponse.Builder answer = RateLimitResponse.newBuilder()
                .setOverallCode(response.allowed() ? Code.OK : Code.OVER_LIMIT);
        for (int i = 0; i < check.entriesOf().length; i++) {
            int[] entries = check.entriesOf()[i];
            answer.addStatuses(entries.length == 0 ? unlimitedOrNone(check, i) : status(strictest(response, entries)));
        }
        for (Map.Entry<String, String> header : response.headers().entrySet()) {
            answer.addResponseHeadersToAdd(HeaderValue.newBuilder().setKey(header.getKey()).setValue(header.getValue()));
        }
        return answer.build();
    }

    /**
     * A fail-closed rule's shard could not answer: the call is denied, each descriptor of a fail-closed rule
     * says OVER_LIMIT, the others OK (unspent, nothing known of their remaining), and a header says why.
     */
    static RateLimitResponse failedClosed(DescriptorCheck check, List<Integer> closedEntries, String reason) {
        return overLimit(check, closedEntries).toBuilder()
                .addResponseHeadersToAdd(HeaderValue.newBuilder().setKey(DEGRADED).setValue(reason)).build();
    }

    /** The call is denied by {@code deniedEntries} without a store's answer; the other descriptors say OK, unspent. */
    static RateLimitResponse overLimit(DescriptorCheck check, List<Integer> deniedEntries) {
        RateLimitResponse.Builder answer = RateLimitResponse.newBuilder().setOverallCode(Code.OVER_LIMIT);
        for (int i = 0; i < check.entriesOf().length; i++) {
            boolean denied = false;
            for (int entry : check.entriesOf()[i]) {
                denied |= deniedEntries.contains(entry);
            }
            answer.addStatuses(denied ? OVER_LIMIT : unlimitedOrNone(check, i));
        }
        return answer.build();
    }

    /** A descriptor that stands for several rules (read as attributes) says what the strictest says: a deny, else the least left. */
    private static EntryResult strictest(CheckResponse response, int[] entries) {
        EntryResult strictest = response.entries().get(entries[0]);
        for (int i = 1; i < entries.length; i++) {
            EntryResult other = response.entries().get(entries[i]);
            boolean otherDenies = other.effectiveVerdict() == Verdict.DENY;
            boolean denies = strictest.effectiveVerdict() == Verdict.DENY;
            if ((otherDenies && !denies) || (otherDenies == denies && other.remaining() < strictest.remaining())) {
                strictest = other;
            }
        }
        return strictest;
    }

    /**
     * A shadow entry answers OK whatever it counted: shadow rules never deny, here either. A denied entry has
     * 0 remaining, as envoyproxy/ratelimit says it, though a smaller cost might still pass.
     */
    private static DescriptorStatus status(EntryResult entry) {
        boolean denied = entry.verdict() == Verdict.DENY;
        DescriptorStatus.Builder status = DescriptorStatus.newBuilder()
                .setCode(entry.effectiveVerdict() == Verdict.DENY ? Code.OVER_LIMIT : Code.OK)
                .setLimitRemaining(denied ? 0 : uint32(entry.remaining()))
                .setDurationUntilReset(duration(entry.resetMs()));
        if (entry.quota() != null && entry.windowS() != null) {
            status.setCurrentLimit(currentLimit(entry.rule(), entry.quota(), entry.windowS()));
        }
        return status.build();
    }

    /**
     * Envoy's limit is requests per whole unit. A window that is a unit says it exactly; another window
     * is said in the smallest unit that states it exactly (10 per 300 s is 2 per minute, 7 per 10 s is
     * 42 per minute, 1 per 120 s is 30 per hour); the rule's name says which rule it is.
     */
    static RateLimit currentLimit(String rule, int quota, int windowS) {
        RateLimit.Builder limit = RateLimit.newBuilder().setName(rule);
        for (int i = 0; i < UNITS.length; i++) {
            if (UNIT_SECONDS[i] == windowS) {
                return limit.setUnit(UNITS[i]).setRequestsPerUnit((int) Math.min(quota, MAX_UINT32)).build();
            }
        }
        for (int i = UNITS.length - 1; i >= 0; i--) {
            long scaled = quota * UNIT_SECONDS[i];
            if (scaled % windowS == 0 && scaled / windowS >= 1 && scaled / windowS <= MAX_UINT32) {
                return limit.setUnit(UNITS[i]).setRequestsPerUnit((int) (scaled / windowS)).build();
            }
        }
        // no unit states it exactly (e.g. 1 per 7 s): per week, rounded down
        return limit.setUnit(RateLimit.Unit.WEEK).setRequestsPerUnit((int) Math.min(MAX_UINT32, quota * 604_800L / windowS)).build();
    }

    private static int uint32(long value) {
        return (int) Math.max(0, Math.min(value, MAX_UINT32));
    }

    private static Duration duration(long ms) {
        long positive = Math.max(0, ms);
        return Duration.newBuilder().setSeconds(positive / 1000).setNanos((int) (positive % 1000) * 1_000_000).build();
    }
}
