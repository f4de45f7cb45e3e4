package dev.tollgate.bench.peer;

import dev.tollgate.bench.Bench;
import dev.tollgate.bench.fleet.Contender;
import dev.tollgate.bench.fleet.CountingStore;
import dev.tollgate.bench.fleet.Gate;
import dev.tollgate.bench.load.Answer;
import dev.tollgate.common.check.CheckEntry;
import dev.tollgate.common.check.CheckRequest;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.limiter.rules.StaticRuleBook;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Tollgate as one pod (one engine, live pods 1) checking one token-bucket rule per key. */
public final class TollgatePeer implements Peer {

    private static final String RULE = "peer";

    private final String name;
    private final Gate pod;
    private final CountingStore store;

    public TollgatePeer(String name, Contender contender, Bench bench, int ratePerS, int burst) {
        this.name = name;
        this.store = bench.store();
        Rule rule = Rule.tokenBucket(RULE, Bench.DOMAIN, ratePerS, burst).withMatch(new Match(RULE, null));
        this.pod = bench.fleet(contender, 1, new StaticRuleBook(List.of(rule))).pod(0);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public CompletableFuture<Answer> acquire(String key) {
        return pod.check(new CheckRequest(Bench.DOMAIN, List.of(CheckEntry.of(RULE, key, 1))));
    }

    @Override
    public long storeCalls() {
        return store.calls();
    }
}
