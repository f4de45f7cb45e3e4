package dev.tollgate.rules.watch;

import org.springframework.stereotype.Component;

import java.util.Map;

/**
 * Which revision the pods enforce, as this instance sees it: a pod watches with {@code since} set to the
 * revision it has applied, so the waiting watches are the pods' own report. Only the pods following this
 * instance are seen (behind a load balancer each rules-service instance holds its share of them); a pod
 * is missing for the moment between an answer and its next watch.
 */
@Component
public class PodRevisions {

    private final RevisionWatcher watcher;

    PodRevisions(RevisionWatcher watcher) {
        this.watcher = watcher;
    }

    /** Revision applied, to how many pods hold it, lowest first. */
    public Map<Long, Integer> held() {
        return watcher.waitingBySince();
    }
}
