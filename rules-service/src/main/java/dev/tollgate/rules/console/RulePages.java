package dev.tollgate.rules.console;

import dev.tollgate.common.rule.Mode;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.validation.Violation;
import dev.tollgate.rules.change.ChangeLog;
import dev.tollgate.rules.change.IfMatch;
import dev.tollgate.rules.problem.CounterStoreUnavailableException;
import dev.tollgate.rules.problem.InvalidRuleException;
import dev.tollgate.rules.problem.NoCanaryException;
import dev.tollgate.rules.problem.VersionConflictException;
import dev.tollgate.rules.rule.RuleCanary;
import dev.tollgate.rules.rule.RuleCatalog;
import dev.tollgate.rules.simulate.Simulator;
import dev.tollgate.rules.usage.CanaryRates;
import dev.tollgate.rules.usage.RecentUsage;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.validation.BindingResult;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;

import java.security.Principal;
import java.time.Instant;
import java.util.List;

/**
 * The rules: list, a rule's page with its history, edit under If-Match, shadow and enforce; and a rule's canary,
 * with what it and the promoted version deny side by side, to promote or roll back.
 */
@Controller
@RequestMapping("/console/rules")
class RulePages {

    private final RuleCatalog catalog;
    private final RecentUsage recent;
    private final ChangeLog changes;
    private final Simulator simulator;

    RulePages(RuleCatalog catalog, RecentUsage recent, ChangeLog changes, Simulator simulator) {
        this.catalog = catalog;
        this.recent = recent;
        this.changes = changes;
        this.simulator = simulator;
    }

    /**
     * A shadow rule's would-be denies per second in this region, from the pods' usage report
     * ({@code sd:{<window>}}): the last closed 10 s window, and the open one so far.
     */
    record ShadowRate(String lastWindow, String openWindow) {
    }

    /**
     * A rule's canary as its page shows it.
     *
     * @param rates null while the region's Redis cannot be read
     */
    record CanaryView(RulePage.Summary rule, long baseVersion, Instant writtenAt, List<RateRow> rates) {
    }

    /** One version's denies and shadow denies per second, by the pods that enforce it. */
    record RateRow(long version, String enforcedBy, String mode, String denies, String shadowDenies) {
    }

    @GetMapping({"", "/"})
    String list(Model model) {
        model.addAttribute("rules", RulePage.summaries(catalog.list(null)));
        return "console/rules";
    }

    @GetMapping("/{id}")
    String rule(@PathVariable String id, @RequestParam(required = false) Long revision, Model model) {
        Rule rule = catalog.get(id);
        return show(rule, RuleForm.of(rule), revision, model);
    }

    @PostMapping("/{id}")
    String edit(@PathVariable String id, RuleForm form, BindingResult binding, Principal who, Model model, HttpServletResponse response) {
        Rule stored = catalog.get(id);
        try {
            RuleForm.requireBound(binding);
            if (form.reason() == null || form.reason().isBlank()) {
                throw InvalidRuleException.of("reason", "is required: the history says why the rule changed");
            }
            catalog.put(form.applyTo(stored), IfMatch.parse(form.ifMatch()), who.getName(), form.reason().trim());
        } catch (VersionConflictException e) {
            response.setStatus(HttpServletResponse.SC_CONFLICT);
            Rule newer = catalog.get(id);
            RuleForm newerForm = RuleForm.of(newer);
            RuleForm base = versionRead(id, form.version());
            if (base == null) {
                model.addAttribute("conflict", new Conflict(form.version(), newer.version(), List.of()));
                return show(newer, form.basedOn(newer.version()), null, model);
            }
            model.addAttribute("conflict", new Conflict(form.version(), newer.version(), form.clashesWith(base, newerForm)));
            return show(newer, form.rebase(base, newerForm), null, model);
        } catch (InvalidRuleException e) {
            response.setStatus(422);
            model.addAttribute("errors", e.violations());
            return show(stored, form, null, model);
        }
        return "redirect:/console/rules/" + id + "?revision=" + changes.revision();
    }

    @PostMapping("/{id}/mode")
    String mode(@PathVariable String id, @RequestParam String mode, @RequestParam(required = false) Long version,
                @RequestParam(required = false) String reason, Principal who, Model model, HttpServletResponse response) {
        Mode target = "shadow".equals(mode) ? Mode.SHADOW : Mode.ENFORCE;
        try {
            if (reason == null || reason.isBlank()) {
                throw InvalidRuleException.of("mode_reason", "is required: the history says why the mode changed");
            }
            catalog.setMode(id, target, IfMatch.parse(version == null ? null : version.toString()), who.getName(), reason.trim());
        } catch (VersionConflictException e) {
            response.setStatus(HttpServletResponse.SC_CONFLICT);
            Rule newer = catalog.get(id);
            model.addAttribute("conflict", new Conflict(version, newer.version(), List.of()));
            return show(newer, RuleForm.of(newer), null, model);
        } catch (InvalidRuleException e) {
            response.setStatus(422);
            model.addAttribute("errors", e.violations());
            Rule rule = catalog.get(id);
            return show(rule, RuleForm.of(rule), null, model);
        }
        return "redirect:/console/rules/" + id + "?revision=" + changes.revision();
    }

    /** Promotes or rolls back the rule's canary, at the version the page showed. */
    @PostMapping("/{id}/canary")
    String canary(@PathVariable String id, @RequestParam String action, @RequestParam(required = false) Long version,
                  @RequestParam(required = false) String reason, Principal who, Model model, HttpServletResponse response) {
        try {
            if (reason == null || reason.isBlank()) {
                throw InvalidRuleException.of("canary_reason", "is required: the history says why the canary was promoted or rolled back");
            }
            IfMatch ifMatch = IfMatch.parse(version == null ? null : version.toString());
            switch (action) {
                case "promote" -> catalog.promote(id, ifMatch, who.getName(), reason.trim());
                case "rollback" -> catalog.rollback(id, ifMatch, who.getName(), reason.trim());
                default -> throw InvalidRuleException.of("action", "must be promote or rollback");
            }
        } catch (VersionConflictException | NoCanaryException e) {
            // another change came first: the page again, as it is now, saying so
            response.setStatus(HttpServletResponse.SC_CONFLICT);
            model.addAttribute("errors", List.of(new Violation("canary", e.getMessage())));
            Rule rule = catalog.get(id);
            return show(rule, RuleForm.of(rule), null, model);
        } catch (InvalidRuleException e) {
            response.setStatus(422);
            model.addAttribute("errors", e.violations());
            Rule rule = catalog.get(id);
            return show(rule, RuleForm.of(rule), null, model);
        }
        return "redirect:/console/rules/" + id + "?revision=" + changes.revision();
    }

    /**
     * What the edit form's values would have denied of the rule's recorded checks, shown on the page with the form as
     * it was sent: nothing is saved, so it only reads (a reader may run it, as {@code POST /v1/rules/{id}:simulate}).
     * A form that does not validate shows its problems as a save would.
     */
    @PostMapping("/{id}/what-if")
    String whatIf(@PathVariable String id, RuleForm form, BindingResult binding, @RequestParam(required = false) String span,
                  Model model, HttpServletResponse response) {
        Rule stored = catalog.get(id);
        String shown = WhatIf.span(span);
        try {
            RuleForm.requireBound(binding);
            Rule proposed = catalog.proposed(form.applyTo(stored));
            model.addAttribute("whatIf", simulate(stored.id(), proposed, shown, false, response));
        } catch (InvalidRuleException e) {
            response.setStatus(422);
            model.addAttribute("errors", e.violations());
        }
        model.addAttribute("span", shown);
        return show(stored, form, null, model);
    }

    /**
     * A shadow rule as it stands, enforced: its recorded would-be denies are what enforcing it would have denied, with
     * the replay of the same checks beside them. Shown beside the switch to enforce.
     */
    @PostMapping("/{id}/what-if-enforced")
    String whatIfEnforced(@PathVariable String id, @RequestParam(required = false) String span, Model model,
                          HttpServletResponse response) {
        Rule stored = catalog.get(id);
        String shown = WhatIf.span(span);
        model.addAttribute("whatIf", simulate(stored.id(), stored.withMode(Mode.ENFORCE), shown, true, response));
        model.addAttribute("span", shown);
        return show(stored, RuleForm.of(stored), null, model);
    }

    private WhatIf simulate(String id, Rule proposed, String span, boolean enforcing, HttpServletResponse response) {
        try {
            return WhatIf.of(simulator.simulate(id, proposed, WhatIf.duration(span), Integer.MAX_VALUE), span, enforcing);
        } catch (CounterStoreUnavailableException e) {
            // the rule's page still serves, with the reason in the panel: only the simulation needs Redis
            response.setStatus(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
            return WhatIf.unavailable(span, enforcing, e.getMessage());
        }
    }

    /**
     * @param yours   the version the editor's page was based on; {@code current} the one stored now
     * @param clashes fields both the editor and the newer version changed, differently
     */
    record Conflict(Long yours, long current, List<String> clashes) {
    }

    /** The version the editor read, from the history; null when it is not there (a rule deleted and created again). */
    private RuleForm versionRead(String id, Long version) {
        if (version == null) {
            return null;
        }
        return catalog.history(id).stream()
                .filter(entry -> "rule".equalsIgnoreCase(entry.entity()) && version.equals(entry.newVersion()) && entry.newValue() != null)
                .reduce((first, second) -> second)
                .map(entry -> RuleForm.of(entry.newValue(), version))
                .orElse(null);
    }

    private String show(Rule rule, RuleForm form, Long revision, Model model) {
        model.addAttribute("rule", RulePage.summary(rule));
        model.addAttribute("form", form);
        model.addAttribute("history", RulePage.history(catalog.history(rule.id())));
        model.addAttribute("shadowRate", shadowRate(rule.id()));
        model.addAttribute("canary", catalog.findCanary(rule.id()).map(canary -> canaryView(rule, canary)).orElse(null));
        model.addAttribute("revision", revision);
        model.addAttribute("spans", WhatIf.SPANS);
        return "console/rule";
    }

    private CanaryView canaryView(Rule rule, RuleCanary canary) {
        List<RateRow> rates;
        try {
            CanaryRates read = recent.canaryRates(rule, canary);
            rates = List.of(row(read.promoted(), "the other pods"), row(read.canary(), "the canary pods"));
        } catch (CounterStoreUnavailableException e) {
            rates = null;
        }
        return new CanaryView(RulePage.summary(canary.rule()), canary.baseVersion(), canary.writtenAt(), rates);
    }

    private static RateRow row(CanaryRates.VersionRates rates, String enforcedBy) {
        return new RateRow(rates.version(), enforcedBy, rates.mode(), RateChart.rate(rates.denyPerS()), RateChart.rate(rates.shadowDenyPerS()));
    }

    private ShadowRate shadowRate(String ruleId) {
        try {
            RecentUsage.Series series = recent.shadowDenied(List.of(ruleId));
            List<Long> costs = series.costs().get(ruleId);
            double closed = costs.get(costs.size() - 2) / (double) dev.tollgate.store.key.UsageKeys.WINDOW_SECONDS;
            double open = costs.get(costs.size() - 1) / series.openSeconds();
            return new ShadowRate(RateChart.rate(closed), RateChart.rate(open));
        } catch (CounterStoreUnavailableException e) {
            return null;
        }
    }
}
