package dev.tollgate.rules.console;

import dev.tollgate.rules.problem.BadRequestException;
import dev.tollgate.rules.problem.CanaryPendingException;
import dev.tollgate.rules.problem.CounterStoreUnavailableException;
import dev.tollgate.rules.problem.NotFoundException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpStatus;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.servlet.ModelAndView;

import java.util.Map;

/**
 * What every console page knows (who is signed in, whether they may change anything), and failures as
 * pages rather than the API's problem JSON: ahead of the API's advice, for the console's controllers only.
 */
@ControllerAdvice(basePackageClasses = ConsoleAdvice.class)
@Order(Ordered.HIGHEST_PRECEDENCE)
class ConsoleAdvice {

    private static final Logger log = LoggerFactory.getLogger(ConsoleAdvice.class);

    static final String ADMIN = "SCOPE_ratelimit:admin";

    @ModelAttribute("user")
    String user(Authentication authentication) {
        return authentication == null ? null : authentication.getName();
    }

    @ModelAttribute("canChange")
    boolean canChange(Authentication authentication) {
        return authentication != null && authentication.getAuthorities().stream().map(GrantedAuthority::getAuthority).anyMatch(ADMIN::equals);
    }

    /** htmx sends it as a header on every request it makes, so a boosted form or button passes the CSRF check. */
    @ModelAttribute("htmxHeaders")
    String htmxHeaders(CsrfToken csrf) {
        return csrf == null ? "{}" : "{\"" + csrf.getHeaderName() + "\":\"" + csrf.getToken() + "\"}";
    }

    @ExceptionHandler(NotFoundException.class)
    ModelAndView notFound(NotFoundException e, Authentication who) {
        return page(HttpStatus.NOT_FOUND, "Not found", e.getMessage(), who);
    }

    /** A change to a rule under a canary, which the rule's page offers only as its promote or rollback. */
    @ExceptionHandler(CanaryPendingException.class)
    ModelAndView canaryPending(CanaryPendingException e, Authentication who) {
        return page(HttpStatus.CONFLICT, "The rule has a canary", e.getMessage(), who);
    }

    @ExceptionHandler(BadRequestException.class)
    ModelAndView badRequest(BadRequestException e, Authentication who) {
        return page(HttpStatus.BAD_REQUEST, "That cannot be looked up", e.getMessage(), who);
    }

    @ExceptionHandler(CounterStoreUnavailableException.class)
    ModelAndView counters(CounterStoreUnavailableException e, Authentication who) {
        return page(HttpStatus.SERVICE_UNAVAILABLE, "Usage cannot be read right now", e.getMessage()
                + " Rules and overrides can still be changed; retry in a few seconds.", who);
    }

    @ExceptionHandler(DataAccessException.class)
    ModelAndView rulesStore(DataAccessException e, Authentication who) {
        log.warn("console: rules store failure: {}", e.getMessage());
        return page(HttpStatus.SERVICE_UNAVAILABLE, "The rules store cannot be reached",
                "PostgreSQL did not answer; nothing was changed. Retry in a few seconds.", who);
    }

    private ModelAndView page(HttpStatus status, String title, String detail, Authentication who) {
        ModelAndView page = new ModelAndView("console/error", Map.of("title", title, "detail", detail), status);
        page.addObject("user", user(who));
        page.addObject("canChange", canChange(who));
        return page;
    }
}
