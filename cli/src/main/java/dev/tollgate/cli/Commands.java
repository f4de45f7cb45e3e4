package dev.tollgate.cli;

import java.io.PrintWriter;

/** What the commands that talk to rules-service print alike. */
final class Commands {

    private Commands() {
    }

    /** A refusal of {@code file}, printed readably with a hint where the status has one; returns its exit code. */
    static int refused(PrintWriter out, DomainFiles.Local file, RulesApi.Answer answer) {
        out.println(file.path() + ": " + (file.config() == null ? "" : "domain " + file.domain() + ": ") + "refused");
        ReportText.problem(answer).forEach(line -> out.println("  " + line));
        String hint = hint(answer.status());
        if (hint != null) {
            out.println("  " + hint);
        }
        out.flush();
        return answer.ok() ? ExitCodes.UNAVAILABLE : answer.exitCode();
    }

    static String hint(int status) {
        return switch (status) {
            case 401 -> "the token was not accepted: check --token or " + ServerOptions.TOKEN_VARIABLE + " (expired? another issuer?)";
            case 403 -> "the token lacks the scope: diff and export need ratelimit:read, apply needs ratelimit:admin";
            case 404 -> "no such endpoint: is --url rules-service's base URL?";
            case 409 -> "the domain changed since it was diffed: nothing was applied to it; diff again and apply what you see";
            default -> null;
        };
    }
}
