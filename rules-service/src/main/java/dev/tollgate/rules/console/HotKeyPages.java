package dev.tollgate.rules.console;

import dev.tollgate.rules.hotkeys.FleetHotKeysReader;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;

/** The region's hot keys and slots over all its pods, refreshing itself: where the TollgateHotSlot runbook starts. */
@Controller
@RequestMapping("/console/hot-keys")
class HotKeyPages {

    /** As many as a page shows at a glance; the API gives up to 100. */
    private static final int SHOWN = 20;

    private final FleetHotKeysReader reader;

    HotKeyPages(FleetHotKeysReader reader) {
        this.reader = reader;
    }

    @GetMapping({"", "/"})
    String hotKeys(Model model) {
        model.addAttribute("page", HotKeysPage.of(reader.read(SHOWN)));
        return "console/hot-keys";
    }

    /** The part that refreshes itself every 5 s. */
    @GetMapping("/live")
    String live(Model model) {
        model.addAttribute("page", HotKeysPage.of(reader.read(SHOWN)));
        return "console/hot-keys :: live";
    }
}
