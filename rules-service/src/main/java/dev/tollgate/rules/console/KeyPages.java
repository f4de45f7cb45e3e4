package dev.tollgate.rules.console;

import dev.tollgate.common.check.CheckRequestValidator;
import dev.tollgate.common.validation.RuleValidator;
import dev.tollgate.common.validation.Violation;
import dev.tollgate.rules.change.ChangeLog;
import dev.tollgate.rules.override.OverrideCatalog;
import dev.tollgate.rules.override.OverrideRequest;
import dev.tollgate.rules.problem.BadRequestException;
import dev.tollgate.rules.problem.CounterStoreUnavailableException;
import dev.tollgate.rules.problem.InvalidRuleException;
import dev.tollgate.rules.usage.RecentUsage;
import dev.tollgate.rules.usage.UsageReader;
import dev.tollgate.store.key.UsageKeys;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.util.UriComponentsBuilder;

import java.security.Principal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Find a key, see its buckets live, raise its limit and end an override early. */
@Controller
@RequestMapping("/console")
class KeyPages {

    private static final int SEARCH_LIMIT = 50;
    /** The rules one look asks about: a key has a handful; the pods take 64 entries a check by default. */
    static final int MAX_EXPLAIN_RULES = 16;

    private final UsageReader usage;
    private final RecentUsage recent;
    private final RateSamples samples;
    private final OverrideCatalog overrides;
    private final KeyDirectory directory;
    private final ChangeLog changes;
    private final Clock clock;
    private final PodExplain explain;

    KeyPages(UsageReader usage, RecentUsage recent, RateSamples samples, OverrideCatalog overrides, KeyDirectory directory,
             ChangeLog changes, Clock clock, PodExplain explain) {
        this.usage = usage;
        this.recent = recent;
        this.samples = samples;
        this.overrides = overrides;
        this.directory = directory;
        this.changes = changes;
        this.clock = clock;
        this.explain = explain;
    }

    /**
     * The "why would a check be denied now?" form: the rules picked among the key's, more typed (comma- or
     * space-separated), the domain the check names and its cost (0 looks without a request's cost).
     */
    record ExplainForm(String domain, List<String> rule, String rules, String cost) {

        static ExplainForm of(KeyPage page) {
            String domain = page.buckets().stream().map(KeyPage.Bucket::domain).findFirst().orElse("");
            List<String> rules = page.buckets().stream().filter(b -> b.domain().equals(domain)).map(KeyPage.Bucket::ruleId)
                    .limit(MAX_EXPLAIN_RULES).toList();
            return new ExplainForm(domain, rules, "", "1");
        }

        public boolean picked(String ruleId) {
            return rule != null && rule.contains(ruleId);
        }

        /** The form as shown again after a 400: only the values a check could carry, so nothing odd is echoed into the page. */
        ExplainForm cleaned() {
            String shownDomain = domain != null && RuleValidator.isStorableText(domain, RuleValidator.MAX_DOMAIN) ? domain : "";
            List<String> shownRules = rule == null ? List.of() : rule.stream().filter(RuleValidator::isRuleId).limit(MAX_EXPLAIN_RULES).toList();
            String shownTyped = rules != null && rules.length() <= MAX_EXPLAIN_RULES * 65 && rules.matches("[A-Za-z0-9._,\\s-]*") ? rules : "";
            String shownCost = cost != null && cost.strip().matches("[0-9]{1,10}") ? cost.strip() : "1";
            return new ExplainForm(shownDomain, shownRules, shownTyped, shownCost);
        }
    }

    @ModelAttribute("explainSetUp")
    boolean explainSetUp() {
        return explain.configured();
    }

    /** The raise-a-limit form; {@code expiresAt} as a browser's datetime-local input sends it, read as UTC. */
    record OverrideForm(String rule, Integer ratePerS, Integer burst, String expiresAt, String reason) {
    }

    @GetMapping({"", "/"})
    String home() {
        return "console/home";
    }

    @GetMapping("/keys")
    String search(@RequestParam(name = "q", defaultValue = "") String query, Model model) {
        String q = query.trim();
        if (q.isEmpty()) {
            return "redirect:/console/";
        }
        model.addAttribute("q", q);
        model.addAttribute("matches", RuleValidator.isAccountId(q) ? directory.search(q, SEARCH_LIMIT) : List.of());
        return "console/search";
    }

    @GetMapping("/key")
    String key(@RequestParam String key, @RequestParam(required = false) Long revision, Model model) {
        KeyPage page = KeyPage.of(usage.read(key, null));
        model.addAttribute("page", page);
        model.addAttribute("chart", chart(page));
        model.addAttribute("revision", revision);
        model.addAttribute("form", new OverrideForm(page.overridableRules().isEmpty() ? null : page.overridableRules().get(0), null, null,
                LocalDateTime.ofInstant(clock.instant().plus(Duration.ofDays(7)).truncatedTo(ChronoUnit.HOURS), ZoneOffset.UTC).toString(), null));
        model.addAttribute("explainForm", ExplainForm.of(page));
        return "console/key";
    }

    /**
     * What a check-service pod says a check of the form's rules on the key would answer now, and why: a POST for the
     * form's CSRF token, yet it only reads (the pod spends nothing), so a reader may ask. htmx swaps the panel alone;
     * without scripts the key's page comes back with it. Whatever the pod does, the answer is the panel (its status
     * says why there is none): never a 500, never longer than the configured timeouts.
     */
    @PostMapping("/key/explain")
    String explain(@RequestParam String key, ExplainForm form, @RequestHeader(name = "HX-Request", required = false) String htmx,
                   @RequestHeader(name = "HX-Boosted", required = false) String boosted, Model model, HttpServletResponse response) {
        ExplainPanel panel = ask(key, form);
        response.setStatus(panel.status());
        model.addAttribute("explain", panel);
        model.addAttribute("explainForm", form.cleaned());
        if ("true".equals(htmx) && boosted == null) {
            return "console/key :: explain-result";
        }
        KeyPage page = KeyPage.of(usage.read(key, null));
        model.addAttribute("page", page);
        model.addAttribute("chart", chart(page));
        model.addAttribute("form", new OverrideForm(page.overridableRules().isEmpty() ? null : page.overridableRules().get(0), null, null,
                LocalDateTime.ofInstant(clock.instant().plus(Duration.ofDays(7)).truncatedTo(ChronoUnit.HOURS), ZoneOffset.UTC).toString(), null));
        return "console/key";
    }

    /** The form checked as the pod would check it, before anything is sent: a value no check could carry is the console's 400. */
    private ExplainPanel ask(String key, ExplainForm form) {
        // the key comes from the page's hidden field: one no check could carry is no key's page (the console's 400 page)
        CheckRequestValidator.keyProblem(key).ifPresent(problem -> {
            throw new BadRequestException("The key " + problem + ": no check could carry it, so no pod can explain it.");
        });
        List<String> problems = new ArrayList<>();
        String domain = form.domain() == null ? "" : form.domain().strip();
        if (domain.isEmpty() || !RuleValidator.isStorableText(domain, RuleValidator.MAX_DOMAIN)) {
            problems.add("domain: is required, at most " + RuleValidator.MAX_DOMAIN + " characters, without control characters");
        }
        Set<String> rules = new LinkedHashSet<>();
        if (form.rule() != null) {
            rules.addAll(form.rule());
        }
        if (form.rules() != null && form.rules().length() <= MAX_EXPLAIN_RULES * 65) {
            for (String typed : form.rules().strip().split("[,\\s]+")) {
                if (!typed.isEmpty()) {
                    rules.add(typed);
                }
            }
        } else if (form.rules() != null) {
            problems.add("rules: at most " + MAX_EXPLAIN_RULES + " rule ids");
        }
        if (rules.isEmpty()) {
            problems.add("rules: pick or type at least one rule");
        } else if (rules.size() > MAX_EXPLAIN_RULES) {
            problems.add("rules: at most " + MAX_EXPLAIN_RULES + " at once, " + rules.size() + " were given");
        } else if (!rules.stream().allMatch(RuleValidator::isRuleId)) {
            problems.add("rules: each must be a rule id (letters, digits, '.', '_' and '-', at most 64)");
        }
        long cost = 1;
        String costText = form.cost() == null ? "" : form.cost().strip();
        if (!costText.isEmpty()) {
            try {
                cost = Long.parseLong(costText);
            } catch (NumberFormatException e) {
                cost = -1;
            }
            if (cost < 0 || cost > Integer.MAX_VALUE) {
                problems.add("cost: must be a whole number from 0 (look without a request's cost) to " + Integer.MAX_VALUE);
            }
        }
        if (!problems.isEmpty()) {
            return ExplainPanel.failed(ExplainPanel.Outcome.PROBLEM, 400, "That cannot be asked",
                    "Nothing was sent to the pod: no check could carry these values.", null, problems);
        }
        return explain.explain(domain, key, List.copyOf(rules), cost);
    }

    /** The part of the key's page that refreshes itself: buckets and chart. */
    @GetMapping("/key/live")
    String live(@RequestParam String key, Model model) {
        KeyPage page = KeyPage.of(usage.read(key, null));
        model.addAttribute("page", page);
        model.addAttribute("chart", chart(page));
        return "console/key :: live";
    }

    @PostMapping("/key/overrides")
    String raise(@RequestParam String key, OverrideForm form, Principal who, Model model, HttpServletResponse response) {
        List<Violation> missing = new ArrayList<>();
        if (form.reason() == null || form.reason().isBlank()) {
            missing.add(new Violation("reason", "is required: the history says why a limit was raised"));
        }
        Instant expiresAt = null;
        if (form.expiresAt() == null || form.expiresAt().isBlank()) {
            missing.add(new Violation("expires_at", "is required: a raised limit ends by itself"));
        } else {
            try {
                expiresAt = LocalDateTime.parse(form.expiresAt()).toInstant(ZoneOffset.UTC);
            } catch (DateTimeParseException e) {
                missing.add(new Violation("expires_at", "is not a date and time (YYYY-MM-DDTHH:MM, UTC)"));
            }
        }
        try {
            if (!missing.isEmpty()) {
                throw new InvalidRuleException(missing);
            }
            overrides.put(new OverrideRequest(key, form.rule(), form.ratePerS(), form.burst(), expiresAt, form.reason().trim()), who.getName());
        } catch (InvalidRuleException e) {
            response.setStatus(422);
            model.addAttribute("errors", e.violations());
            model.addAttribute("form", form);
            KeyPage page = KeyPage.of(usage.read(key, null));
            model.addAttribute("page", page);
            model.addAttribute("explainForm", ExplainForm.of(page));
            model.addAttribute("chart", chart(page));
            return "console/key";
        }
        return "redirect:" + keyPath(key, changes.revision());
    }

    @PostMapping("/key/overrides/end")
    String end(@RequestParam String key, @RequestParam String rule, @RequestParam(required = false) String reason,
               Principal who, Model model, HttpServletResponse response) {
        try {
            if (reason == null || reason.isBlank()) {
                throw InvalidRuleException.of("reason", "is required to end an override early");
            }
            overrides.delete(key, rule, who.getName(), reason.trim());
        } catch (InvalidRuleException e) {
            response.setStatus(422);
            model.addAttribute("errors", e.violations());
            return key(key, null, model);
        }
        return "redirect:" + keyPath(key, changes.revision());
    }

    /** Reads the key's usage windows now (the open one and those Redis still holds) and draws the three minutes remembered. */
    private RateChart chart(KeyPage page) {
        List<String> rules = page.buckets().stream().filter(KeyPage.Bucket::inUse).map(KeyPage.Bucket::ruleId).toList();
        try {
            // pods report no usage of per-IP limits and sliding logs: nothing to read or draw for them
            RecentUsage.Series series = recent.admitted(page.key(), page.reportedRuleIds());
            var windows = samples.record(page.key(), series, UsageKeys.WINDOW_SECONDS);
            // every rule that saw traffic in the remembered windows, or has state now
            List<String> drawn = page.reportedRuleIds().stream()
                    .filter(rule -> rules.contains(rule) || windows.values().stream().anyMatch(rates -> rates.getOrDefault(rule, 0.0) > 0))
                    .toList();
            return RateChart.of(windows, drawn, UsageKeys.WINDOW_SECONDS);
        } catch (CounterStoreUnavailableException e) {
            return null;
        }
    }

    static String keyPath(String key, Long revision) {
        // as a variable, so that every character of the key is encoded ('&', '+' and '=' too)
        UriComponentsBuilder uri = UriComponentsBuilder.fromPath("/console/key").queryParam("key", "{key}");
        if (revision != null) {
            uri.queryParam("revision", revision);
        }
        return uri.encode().buildAndExpand(key).toUriString();
    }
}
