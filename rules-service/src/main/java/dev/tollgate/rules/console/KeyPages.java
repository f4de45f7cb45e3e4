package dev.tollgate.rules.console;

import dev.tollgate.common.validation.RuleValidator;
import dev.tollgate.common.validation.Violation;
import dev.tollgate.rules.change.ChangeLog;
import dev.tollgate.rules.override.OverrideCatalog;
import dev.tollgate.rules.override.OverrideRequest;
import dev.tollgate.rules.problem.CounterStoreUnavailableException;
import dev.tollgate.rules.problem.InvalidRuleException;
import dev.tollgate.rules.usage.RecentUsage;
import dev.tollgate.rules.usage.UsageReader;
import dev.tollgate.store.key.UsageKeys;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
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
import java.util.List;

/** Find a key, see its buckets live, raise its limit and end an override early. */
@Controller
@RequestMapping("/console")
class KeyPages {

    private static final int SEARCH_LIMIT = 50;

    private final UsageReader usage;
    private final RecentUsage recent;
    private final RateSamples samples;
    private final OverrideCatalog overrides;
    private final KeyDirectory directory;
    private final ChangeLog changes;
    private final Clock clock;

    KeyPages(UsageReader usage, RecentUsage recent, RateSamples samples, OverrideCatalog overrides, KeyDirectory directory,
             ChangeLog changes, Clock clock) {
        this.usage = usage;
        this.recent = recent;
        this.samples = samples;
        this.overrides = overrides;
        this.directory = directory;
        this.changes = changes;
        this.clock = clock;
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
        return "console/key";
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
