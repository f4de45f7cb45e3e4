package dev.tollgate.store;

import java.util.concurrent.atomic.AtomicLong;

/** The contract on the in-memory store, with a clock that only moves when a test moves it. */
class InMemoryCounterStoreTest extends CounterStoreContract {

    private final AtomicLong micros = new AtomicLong(1_764_500_000_000_000L);
    private final InMemoryCounterStore store = new InMemoryCounterStore(micros::get);

    @Override
    CounterStore store() {
        return store;
    }

    @Override
    void pass(long ms) {
        micros.addAndGet(ms * 1000);
    }
}
