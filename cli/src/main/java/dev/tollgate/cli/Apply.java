package dev.tollgate.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code tollgate apply}: each domain made what its file says, in two steps so that what is applied is what was shown.
 * First a dry run of every file (the same apply, rolled back, refusals included), printed; if any is refused nothing is
 * applied. Then each domain that changes is applied with {@code If-Match} set to the digest its dry run started from
 * (or the one {@code --digests} gives): a domain someone changed in between is refused with 409, not overwritten.
 */
@Command(name = "apply", mixinStandardHelpOptions = true,
        description = "Make each domain what its file says (admin scope), refused (409) for a domain changed since it was diffed.")
final class Apply implements Callable<Integer> {

    @ParentCommand
    Tollgate tollgate;

    @Spec
    CommandSpec spec;

    @Mixin
    FileOption files;

    @Mixin
    ServerOptions server;

    @Option(names = "--dry-run", description = "show what the apply would change and store nothing (exit 3 when something would)")
    boolean dryRun;

    @Option(names = "--reason", paramLabel = "TEXT", description = "why, for the history of every object changed (e.g. the commit)")
    String reason;

    @Option(names = "--digests", paramLabel = "FILE",
            description = "the digests diff --digests-out wrote: each domain is applied only if it is still stored as that diff saw it")
    Path digests;

    private record Planned(DomainFiles.Local file, String digestBefore, boolean changed) {
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        List<DomainFiles.Local> read = DomainFiles.read(files.path, tollgate.clock.instant());
        if (!FileOption.printProblems(read, out)) {
            out.println("nothing applied: fix the files first");
            out.flush();
            return ExitCodes.REFUSED;
        }
        Map<String, String> expected = digests == null ? Map.of() : Digests.read(digests);
        for (DomainFiles.Local file : read) {
            if (digests != null && !expected.containsKey(file.domain())) {
                throw Failure.usage(digests + " has no digest for domain " + file.domain() + ": diff it with --digests-out again");
            }
        }
        RulesApi api = server.api(tollgate.env, true);

        List<Planned> plan = new ArrayList<>();
        for (DomainFiles.Local file : read) {
            RulesApi.Answer answer = api.apply(file, true, reason, expected.get(file.domain()));
            Map<String, Object> report = answer.ok() ? answer.object() : null;
            if (report == null) {
                int exit = Commands.refused(out, file, answer);
                out.println("nothing applied");
                out.flush();
                return exit;
            }
            ReportText.report(report).forEach(out::println);
            plan.add(new Planned(file, String.valueOf(report.get("digest_before")), Boolean.TRUE.equals(report.get("changed"))));
        }
        boolean anyChange = plan.stream().anyMatch(Planned::changed);
        if (dryRun) {
            out.println(anyChange ? "dry run: nothing stored" : "dry run: nothing to change");
            out.flush();
            return anyChange ? ExitCodes.CHANGES : ExitCodes.OK;
        }
        List<String> applied = new ArrayList<>();
        for (Planned step : plan) {
            if (!step.changed()) {
                continue;
            }
            RulesApi.Answer answer = api.apply(step.file(), false, reason, step.digestBefore());
            Map<String, Object> report = answer.ok() ? answer.object() : null;
            if (report == null) {
                int exit = Commands.refused(out, step.file(), answer);
                out.println(applied.isEmpty() ? "nothing applied" : "applied before the refusal: " + String.join(", ", applied));
                out.flush();
                return exit;
            }
            applied.add(step.file().domain());
            out.println("applied domain " + step.file().domain() + ": now digest " + report.get("digest_after"));
        }
        out.println(applied.isEmpty() ? "nothing to change" : "applied " + applied.size() + (applied.size() == 1 ? " domain" : " domains"));
        out.flush();
        return ExitCodes.OK;
    }
}
