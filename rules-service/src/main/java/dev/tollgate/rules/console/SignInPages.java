package dev.tollgate.rules.console;

import dev.tollgate.rules.security.ConsoleSignIn;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;

/** The sign-in page, and the page a refused change lands on. */
@Controller
@RequestMapping("/console")
class SignInPages {

    /** Set by the console's access-denied handler: {@code csrf} or {@code scope}. */
    static final String DENIED_REASON = "tollgate.console.denied";

    private final ConsoleSignIn signIn;

    SignInPages(ConsoleSignIn signIn) {
        this.signIn = signIn;
    }

    @GetMapping("/login")
    String login(Model model) {
        model.addAttribute("signIn", signIn);
        return "console/login";
    }

    /** Any method: a refused POST is forwarded here as it came. */
    @RequestMapping("/denied")
    String denied(HttpServletRequest request, HttpServletResponse response, Model model) {
        response.setStatus(HttpServletResponse.SC_FORBIDDEN);
        model.addAttribute("reason", request.getAttribute(DENIED_REASON));
        return "console/denied";
    }
}
