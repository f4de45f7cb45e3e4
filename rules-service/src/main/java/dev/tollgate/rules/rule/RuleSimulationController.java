package dev.tollgate.rules.rule;

import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.rule.RuleFields;
import dev.tollgate.rules.problem.BadRequestException;
import dev.tollgate.rules.simulate.Simulation;
import dev.tollgate.rules.simulate.Simulator;
import io.swagger.v3.oas.annotations.Operation;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code :simulate}: what a proposed version of a rule would have denied of the checks the pods recorded for a rule
 * over a recent span. Only reads (a reader's token opens it, as {@code POST /v1/config:diff}): the proposal is judged
 * as a write would judge it, and nothing is stored.
 */
@RestController
class RuleSimulationController {

    private static final int MAX_KEYS = 100;

    private final RuleCatalog catalog;
    private final Simulator simulator;

    RuleSimulationController(RuleCatalog catalog, Simulator simulator) {
        this.catalog = catalog;
        this.simulator = simulator;
    }

    @Operation(summary = "Replay the rule's recorded checks of a recent span (span: 10s to 1h, default 1h) through a proposed"
            + " version of it (the PUT body): checks, denied now, denied by the proposal with its error bound, the keys and"
            + " 10 s windows most affected")
    @PostMapping(path = "/v1/rules/{id}:simulate", consumes = MediaType.APPLICATION_JSON_VALUE, produces = MediaType.APPLICATION_JSON_VALUE)
    Simulation simulate(@PathVariable String id, @RequestBody RuleRequest body, @RequestParam(required = false) String span,
                        @RequestParam(defaultValue = "20") int keys) {
        return run(catalog.get(id).id(), body.toFields(id), span, keys);
    }

    @Operation(summary = "Replay an existing rule's recorded checks (checks_of) through a new rule (the PUT body, with its id)")
    @PostMapping(path = "/v1/rules:simulate", consumes = MediaType.APPLICATION_JSON_VALUE, produces = MediaType.APPLICATION_JSON_VALUE)
    Simulation simulateNew(@RequestParam(name = "checks_of", required = false) String checksOf, @RequestBody RuleRequest body,
                           @RequestParam(required = false) String span, @RequestParam(defaultValue = "20") int keys) {
        if (checksOf == null || checksOf.isBlank()) {
            throw new BadRequestException("checks_of: name the existing rule whose recorded checks the new rule would see.");
        }
        Rule recorded = catalog.get(checksOf);
        return run(recorded.id(), body.toFields(body.id() == null ? recorded.id() : body.id()), span, keys);
    }

    private Simulation run(String recorded, RuleFields proposedFields, String span, int keys) {
        if (keys < 1 || keys > MAX_KEYS) {
            throw new BadRequestException("keys: from 1 to " + MAX_KEYS + ", was " + keys + ".");
        }
        // judged before the span, as a PUT judges its body before anything else
        Rule proposed = catalog.proposed(proposedFields);
        return simulator.simulate(recorded, proposed, Simulator.span(span), keys);
    }
}
