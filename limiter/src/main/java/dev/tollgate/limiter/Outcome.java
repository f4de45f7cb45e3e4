package dev.tollgate.limiter;

import dev.tollgate.common.check.CheckProblem;
import dev.tollgate.common.check.CheckResponse;
import dev.tollgate.common.check.ProblemCodes;

import java.util.List;
import java.util.Optional;

/**
 * What the engine answers a check with: one value, never an exception. Every adapter (the HTTP routes, Envoy's
 * RLS, the embedded gateway) switches on it once, through {@link #match}, so each expected way a check ends is
 * decided in one place per protocol, and a new one breaks every adapter's build until it is handled. (Java 17,
 * the bytecode this project targets, has no {@code switch} over a sealed type's records; {@link Cases} is the
 * same exhaustive switch, checked by the compiler.)
 */
public sealed interface Outcome {

    /** Calls the one case of {@code cases} that this outcome is. */
    <T> T match(Cases<T> cases);

    /** The verdict, when the request was checked: what a caller that needs nothing else (a bench, a test) reads. */
    default Optional<CheckResponse> answered() {
        return Optional.empty();
    }

    /** One method per kind of outcome: an adapter implements all of them or does not compile. */
    interface Cases<T> {

        T answered(CheckResponse response);

        T failedClosed(FailedClosed failure);

        T noRules();

        T invalid(List<CheckProblem> problems);
    }

    /** The request was checked: allowed or denied, with what is left of each entry's limit. */
    record Answered(CheckResponse response) implements Outcome {

        @Override
        public <T> T match(Cases<T> cases) {
            return cases.answered(response);
        }

        @Override
        public Optional<CheckResponse> answered() {
            return Optional.of(response);
        }
    }

    /**
     * A fail-closed rule (login) could not reach its counter shard in time: the request is denied, whatever the
     * caller's own failure mode. Nothing of the request stays spent.
     *
     * @param cause   whether the shard timed out or could not be reached
     * @param reason  a short, bounded word for logs and metrics: {@code timeout}, {@code deadline},
     *                {@code breaker_open}, {@code unavailable}, {@code access_denied}, ...
     * @param entries the request's entries whose fail-closed rules could not be checked, in order
     * @param rules   those entries' rules
     */
    record FailedClosed(Cause cause, String reason, List<Integer> entries, List<String> rules) implements Outcome {

        public FailedClosed {
            entries = List.copyOf(entries);
            rules = List.copyOf(rules);
        }

        @Override
        public <T> T match(Cases<T> cases) {
            return cases.failedClosed(this);
        }

        public enum Cause {
            /** The shard did not answer within the store timeout or the check's deadline. */
            TIMEOUT(ProblemCodes.STORE_TIMEOUT),
            /** The shard could not be asked: breaker open, connection refused, node down. */
            UNAVAILABLE(ProblemCodes.STORE_UNAVAILABLE);

            private final String code;

            Cause(String code) {
                this.code = code;
            }

            /** The problem code this answers with on every protocol: {@code store_timeout}, {@code store_unavailable}. */
            public String code() {
                return code;
            }
        }
    }

    /**
     * The pod holds no rules yet (no snapshot fetched nor read from disk): it cannot tell a fail-closed login rule
     * from an unknown one, so it checks nothing and spends nothing; the caller's own failure mode decides.
     */
    record NoRules() implements Outcome {

        public static final NoRules INSTANCE = new NoRules();

        @Override
        public <T> T match(Cases<T> cases) {
            return cases.noRules();
        }
    }

    /** The request cannot be checked as sent; nothing was spent. */
    record Invalid(List<CheckProblem> problems) implements Outcome {

        public Invalid {
            problems = List.copyOf(problems);
        }

        @Override
        public <T> T match(Cases<T> cases) {
            return cases.invalid(problems);
        }
    }
}
