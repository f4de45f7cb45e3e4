package dev.tollgate.rules.console;

import dev.tollgate.rules.change.ChangeLog;
import dev.tollgate.rules.watch.PodRevisions;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;

import java.util.Map;

/** After a change: the revision that holds it, and which revision the pods enforce, until they all have it. */
@Controller
class RevisionPages {

    private final ChangeLog changes;
    private final PodRevisions pods;

    RevisionPages(ChangeLog changes, PodRevisions pods) {
        this.changes = changes;
        this.pods = pods;
    }

    /**
     * @param target   the revision the change was saved at
     * @param held     revision to the number of pods that enforce it
     * @param reached  pods at or past the target
     * @param watching pods following this instance
     */
    record Status(long target, long store, Map<Long, Integer> held, int reached, int watching) {

        public boolean done() {
            return watching > 0 && reached == watching;
        }
    }

    @GetMapping("/console/revision")
    String revision(@RequestParam long target, Model model) {
        model.addAttribute("status", status(target));
        return "console/revision :: status";
    }

    Status status(long target) {
        Map<Long, Integer> held = pods.held();
        int reached = 0;
        int watching = 0;
        for (Map.Entry<Long, Integer> entry : held.entrySet()) {
            watching += entry.getValue();
            if (entry.getKey() >= target) {
                reached += entry.getValue();
            }
        }
        return new Status(target, changes.revision(), held, reached, watching);
    }
}
